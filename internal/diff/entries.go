package diff

import (
	"cmp"
	"slices"

	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
)

// changes is what changes for one reached Gateway and the routes on it, with its counts.
type changes struct {
	entries []Entry // the Gateway's first, when it changes, then its routes'
	summary Summary
}

// compare compares the pair's two sides. Workers run it, since diffing the objects of
// a fleet costs as much as rendering them.
func (p *pair) compare() changes {
	var c changes
	if p.base.gateway == nil && p.after.gateway == nil {
		return c // of no Gatewright class on either side
	}
	c.summary.Gateways = 1
	if p.after.failing() {
		c.summary.Failing = 1
		if p.base.failing() {
			c.summary.FailingBefore = 1
		}
	}
	gateway := Entry{Namespace: p.key.Namespace, Name: p.key.Name}
	c.fill(&gateway, p.base.res, p.after.res)
	gateway.Conditions = conditionChanges(gatewayConditions(p.base), gatewayConditions(p.after))
	if gateway.changed() {
		c.entries = append(c.entries, gateway)
	}
	parent := p.key.String()
	for _, route := range routePairs(p.base.routes, p.after.routes) {
		c.summary.Routes++
		entry := Entry{Kind: route.key.Kind, Namespace: route.key.Namespace, Name: route.key.Name, Gateway: parent}
		c.fill(&entry, route.base.res, route.after.res)
		entry.Conditions = conditionChanges(routeConditions(route.base, parent), routeConditions(route.after, parent))
		if entry.changed() {
			c.entries = append(c.entries, entry)
		}
	}
	return c
}

// fill sets the entry's values and objects, from old to new results (nil where the
// Gateway or route is not there), and counts the objects.
func (c *changes) fill(e *Entry, old, now *translate.Result) {
	e.Values = valueChanges(old, now)
	e.Objects = objectChanges(old, now)
	for _, o := range e.Objects {
		switch o.Action {
		case Create:
			c.summary.Created++
		case Update:
			c.summary.Updated++
		case Prune:
			c.summary.Pruned++
		}
	}
}

// add records the changes of one Gateway and the routes on it.
func (r *Report) add(c changes) {
	for _, e := range c.entries {
		if e.Gateway == "" {
			r.Gateways = append(r.Gateways, e)
		} else {
			r.Routes = append(r.Routes, e)
		}
	}
	s := &r.Summary
	s.Gateways += c.summary.Gateways
	s.Routes += c.summary.Routes
	s.Created += c.summary.Created
	s.Updated += c.summary.Updated
	s.Pruned += c.summary.Pruned
	s.Failing += c.summary.Failing
	s.FailingBefore += c.summary.FailingBefore
}

// routePair is one route on one parent Gateway, on both sides; an outcome without a
// route stands for a side where it is not attached there.
type routePair struct {
	key         routes.Key
	base, after routeOutcome
}

// routePairs matches the routes of the two sides by kind and namespace/name.
func routePairs(base, after []routeOutcome) []routePair {
	byKey := map[routes.Key]*routePair{}
	pairOf := func(o routeOutcome) *routePair {
		key := routes.KeyOf(o.route)
		if byKey[key] == nil {
			byKey[key] = &routePair{key: key}
		}
		return byKey[key]
	}
	for _, o := range base {
		pairOf(o).base = o
	}
	for _, o := range after {
		pairOf(o).after = o
	}
	out := make([]routePair, 0, len(byKey))
	for _, p := range byKey {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b routePair) int {
		return cmp.Or(cmp.Compare(a.key.Namespace, b.key.Namespace), cmp.Compare(a.key.Name, b.key.Name), cmp.Compare(a.key.Kind, b.key.Kind))
	})
	return out
}
