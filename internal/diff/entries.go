package diff

import (
	"cmp"
	"slices"

	"github.com/gatewright/gatewright/internal/translate"
)

// add records the pair's Gateway and routes, those that change, and counts them.
func (r *Report) add(p *pair) {
	if p.base.gateway == nil && p.after.gateway == nil {
		return // of no Gatewright class on either side
	}
	r.Summary.Gateways++
	if p.after.failing() {
		r.Summary.Failing++
		if p.base.failing() {
			r.Summary.FailingBefore++
		}
	}
	gateway := Entry{Namespace: p.key.Namespace, Name: p.key.Name}
	r.fill(&gateway, p.base.res, p.after.res)
	gateway.Conditions = conditionChanges(gatewayConditions(p.base), gatewayConditions(p.after))
	if gateway.changed() {
		r.Gateways = append(r.Gateways, gateway)
	}
	parent := p.key.String()
	for _, route := range routePairs(p.base.routes, p.after.routes) {
		r.Summary.Routes++
		entry := Entry{Namespace: route.key.Namespace, Name: route.key.Name, Gateway: parent}
		r.fill(&entry, route.base.res, route.after.res)
		entry.Conditions = conditionChanges(routeConditions(route.base, parent), routeConditions(route.after, parent))
		if entry.changed() {
			r.Routes = append(r.Routes, entry)
		}
	}
}

// fill sets the entry's values and objects, from old to new results (nil where the
// Gateway or route is not there), and counts the objects.
func (r *Report) fill(e *Entry, old, now *translate.Result) {
	e.Values = valueChanges(old, now)
	e.Objects = objectChanges(old, now)
	for _, o := range e.Objects {
		switch o.Action {
		case Create:
			r.Summary.Created++
		case Update:
			r.Summary.Updated++
		case Prune:
			r.Summary.Pruned++
		}
	}
}

// routePair is one route on one parent Gateway, on both sides; an outcome without a
// route stands for a side where it is not attached there.
type routePair struct {
	key         routeKey
	base, after routeOutcome
}

type routeKey struct{ Namespace, Name string }

// routePairs matches the routes of the two sides by namespace/name.
func routePairs(base, after []routeOutcome) []routePair {
	byKey := map[routeKey]*routePair{}
	pairOf := func(o routeOutcome) *routePair {
		key := routeKey{o.route.Namespace, o.route.Name}
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
		return cmp.Or(cmp.Compare(a.key.Namespace, b.key.Namespace), cmp.Compare(a.key.Name, b.key.Name))
	})
	return out
}
