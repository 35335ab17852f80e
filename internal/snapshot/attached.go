package snapshot

import (
	"context"
	"slices"
	"strings"

	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
)

// attachment is where routes attach on a Gateway.
type attachment struct {
	// routes are the HTTPRoutes attached to at least one listener, sorted by
	// namespace/name; others those of the other kinds, by kind then namespace/name.
	routes []*gatewayv1.HTTPRoute
	others []routes.Route
	// routeListeners and otherListeners are the listeners each of routes and others
	// attaches to, by index.
	routeListeners, otherListeners [][]gatewayv1.SectionName
	// routeFacts are what the route table reads of each of routes, by index, as the memo
	// keeps them; nil for a route it does not keep.
	routeFacts []*routing.RouteFacts
	// counts are how many routes, of every kind, attach to each listener.
	counts map[gatewayv1.SectionName]int32
}

// namespaceLabels are the labels of a route's namespace, read once a pass, and as one
// string for the AttachMemo.
type namespaceLabels struct {
	labels map[string]string
	key    string
}

// attached finds the routes among candidates (HTTPRoutes) and others (routes of the other
// kinds) attached to gw by the Gateway API rules, on a class that serves what serves says.
// A route attaches to the listeners of sets, the Gateway's ListenerSets, through its
// parentRefs naming them; those listeners are named by listeners.SetRef.Key.
func (g *Gatherer) attached(ctx context.Context, gw *gatewayv1.Gateway, serves listeners.Serves, candidates []*gatewayv1.HTTPRoute, others []routes.Route, sets []listenerSet) (attachment, error) {
	a := attachment{counts: map[gatewayv1.SectionName]int32{}}
	setOf := make(map[types.NamespacedName]*listenerSet, len(sets))
	for i := range sets {
		setOf[types.NamespacedName{Namespace: sets[i].item.Namespace, Name: sets[i].item.Name}] = &sets[i]
	}
	onGw := attach.ToGateway(gw, serves)
	// Without a Gateway's memo, one for this pass: the same path either way.
	memo := NewAttachMemo()
	if g.AttachMemos != nil {
		if kept := g.AttachMemos(gw); kept != nil {
			memo = kept
		}
	}
	memo.begin(gw, serves, sets)
	complete := false
	labelsOf := map[string]namespaceLabels{}
	defer func() { memo.end(complete, labelsOf) }()
	labelsFor := func(namespace string) (namespaceLabels, error) {
		ns, ok := labelsOf[namespace]
		if !ok {
			labels, err := g.routeNamespaceLabels(ctx, gw, namespace)
			if err != nil {
				return namespaceLabels{}, err
			}
			ns = namespaceLabels{labels: labels, key: k8slabels.Set(labels).String()}
			labelsOf[namespace] = ns
		}
		return ns, nil
	}
	sameLabels, err := memo.sameLabels(func(namespace string) (string, error) {
		ns, err := labelsFor(namespace)
		return ns.key, err
	})
	if err != nil {
		return attachment{}, err
	}
	take := func(route routes.Route) ([]gatewayv1.SectionName, *routes.MemoEntry[attachedRoute], error) {
		// A route the memo holds at its generation named the Gateway or its ListenerSets
		// as it does now, the Gateway's side being the same: its parentRefs need no
		// reading again, only its namespace's labels, unless no namespace's changed.
		e, err := memo.taken(route, sameLabels, func() (string, error) {
			ns, err := labelsFor(route.GetNamespace())
			return ns.key, err
		})
		if err != nil || e != nil {
			return takenBy(e), e, err
		}
		var onSets []gatewayv1.ParentReference
		for _, ref := range routes.ParentRefs(route) {
			if key, isListenerSet := attach.ParentListenerSet(route.GetNamespace(), ref); isListenerSet && setOf[key] != nil {
				onSets = append(onSets, ref)
			}
		}
		onGateway := len(attach.ParentRefsTo(route, gw)) > 0
		if !onGateway && len(onSets) == 0 {
			return nil, nil, nil
		}
		ns, err := labelsFor(route.GetNamespace())
		if err != nil {
			return nil, nil, err
		}
		labels := ns.labels
		var taken []gatewayv1.SectionName
		if onGateway {
			taken = onGw.Listeners(attach.RouteOf(route), labels)
		}
		for _, ref := range onSets {
			key, _ := attach.ParentListenerSet(route.GetNamespace(), ref)
			set := setOf[key]
			for _, name := range attach.AttachToListenerSet(set.item, set.verdict, serves, attach.RouteOf(route), ref, labels).Listeners {
				if k := set.verdict.Ref.Key(name); !slices.Contains(taken, k) {
					taken = append(taken, k)
				}
			}
		}
		return taken, memo.keep(route, ns.key, taken), nil
	}
	// The HTTPRoutes the memo kept keep their order by namespace and name; those that
	// came are merged in, and those it cannot keep (without a UID) sorted with the rest.
	var came []*routes.MemoEntry[attachedRoute]
	var unkept []routeOn[*gatewayv1.HTTPRoute]
	for _, route := range candidates {
		taken, e, err := take(route)
		if err != nil {
			return attachment{}, err
		}
		switch {
		case e != nil && !e.Value.ordered:
			came = append(came, e)
		case e == nil && len(taken) > 0:
			unkept = append(unkept, routeOn[*gatewayv1.HTTPRoute]{route: route, listeners: taken})
		}
	}
	order := memo.reorder(came)
	httpRoutes := make([]routeOn[*gatewayv1.HTTPRoute], 0, len(order)+len(unkept))
	for _, e := range order {
		if len(e.Value.taken) > 0 {
			httpRoutes = append(httpRoutes, routeOn[*gatewayv1.HTTPRoute]{route: e.Route.(*gatewayv1.HTTPRoute), listeners: e.Value.taken, facts: e.Value.facts})
		}
	}
	if len(unkept) > 0 {
		httpRoutes = append(httpRoutes, unkept...)
		// By "namespace/name", without building it.
		slices.SortFunc(httpRoutes, func(a, b routeOn[*gatewayv1.HTTPRoute]) int {
			return routing.CompareNamespacedNames(a.route.Namespace, a.route.Name, b.route.Namespace, b.route.Name)
		})
	}
	var otherRoutes []routeOn[routes.Route]
	for _, route := range others {
		taken, _, err := take(route)
		if err != nil {
			return attachment{}, err
		}
		if len(taken) > 0 {
			otherRoutes = append(otherRoutes, routeOn[routes.Route]{route: route, listeners: taken})
		}
	}
	for _, attached := range httpRoutes {
		a.count(attached.listeners)
	}
	for _, attached := range otherRoutes {
		a.count(attached.listeners)
	}
	complete = true
	sortByKey(otherRoutes, func(t routeOn[routes.Route]) string { return routeKey(t.route) })
	a.routes, a.routeListeners = split(httpRoutes)
	a.routeFacts = make([]*routing.RouteFacts, len(httpRoutes))
	for i, t := range httpRoutes {
		a.routeFacts[i] = t.facts
	}
	a.others, a.otherListeners = split(otherRoutes)
	return a, nil
}

// count counts a route attached to listeners.
func (a *attachment) count(listeners []gatewayv1.SectionName) {
	for _, l := range listeners {
		a.counts[l]++
	}
}

// routeOn is a route, the listeners it attaches to, and its facts as the memo keeps
// them (nil when it does not).
type routeOn[R routes.Route] struct {
	route     R
	listeners []gatewayv1.SectionName
	facts     *routing.RouteFacts
}

// split is the routes of attached and, by index, their listeners.
func split[R routes.Route](attached []routeOn[R]) ([]R, [][]gatewayv1.SectionName) {
	out, on := make([]R, len(attached)), make([][]gatewayv1.SectionName, len(attached))
	for i, t := range attached {
		out[i], on[i] = t.route, t.listeners
	}
	return out, on
}

// sortByKey sorts items by the key of each, computed once rather than at every
// comparison.
func sortByKey[T any](items []T, key func(T) string) {
	keys := make([]string, len(items))
	order := make([]int, len(items))
	for i, item := range items {
		keys[i], order[i] = key(item), i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	sorted := make([]T, len(items))
	for i, j := range order {
		sorted[i] = items[j]
	}
	copy(items, sorted)
}

func routeKey(route routes.Route) string {
	return routes.KindOf(route) + "/" + route.GetNamespace() + "/" + route.GetName()
}
