package snapshot

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
)

// ListenerSetRouteKey is how RouteParentIndex names a ListenerSet that a route's parentRef
// names: apart from the Gateways, whose keys ("namespace/name") have no ":".
func ListenerSetRouteKey(key types.NamespacedName) string { return "ListenerSet:" + key.String() }

// attachedListenerSets are the ListenerSets attached to gw, of a class that serves what
// serves says, with their verdicts, judged as the Gateway's reconciler judges them: a
// route reaches gw through them as through gw's own listeners.
func (g *Gatherer) attachedListenerSets(ctx context.Context, gw *gatewayv1.Gateway, serves listeners.Serves) ([]listenerSet, error) {
	if !g.ServesListenerSets || !serves.ListenerSets() {
		return nil, nil
	}
	own, err := g.Listeners(ctx, gw, serves)
	if err != nil {
		return nil, err
	}
	sets, _, err := g.readListenerSets(ctx, gw, serves, own)
	return attachedOnly(sets), err
}

// readListenerSets reads the ListenerSets naming gw as their parent and judges them, on
// a class that serves what serves says, own being the verdicts of gw's own listeners; none
// when Reader serves no ListenerSets or the class takes none.
func (g *Gatherer) readListenerSets(ctx context.Context, gw *gatewayv1.Gateway, serves listeners.Serves, own []listeners.Status) ([]listenerSet, []listeners.SetVerdict, error) {
	if !g.ServesListenerSets || !serves.ListenerSets() {
		return nil, nil, nil
	}
	key := client.ObjectKeyFromObject(gw)
	var list gatewayv1.ListenerSetList
	var opts []client.ListOption
	if g.ListenerSetParentIndex != "" {
		opts = append(opts, client.MatchingFields{g.ListenerSetParentIndex: key.String()})
	}
	// A cluster that serves no ListenerSets holds none.
	if err := g.Reader.List(ctx, &list, opts...); err != nil && !meta.IsNoMatchError(err) {
		return nil, nil, g.reading(err, "the ListenerSets of Gateway %s", key)
	}
	naming := list.Items[:0]
	for _, ls := range list.Items {
		if parent, isGateway := attach.ListenerSetParent(&ls); isGateway && parent == key {
			naming = append(naming, ls)
		}
	}
	verdicts, err := g.ListenerSets(ctx, gw, serves, own, naming)
	if err != nil {
		return nil, nil, err
	}
	return setsOf(naming, verdicts), verdicts, nil
}

// attachedOnly are those of sets attached to their Gateway.
func attachedOnly(sets []listenerSet) []listenerSet {
	var out []listenerSet
	for _, set := range sets {
		if set.verdict.Accepted {
			out = append(out, set)
		}
	}
	return out
}

// routesOnListenerSets adds to candidates the HTTPRoutes whose parentRefs name one of
// sets, through RouteParentIndex; without it candidates already hold every route.
func (g *Gatherer) routesOnListenerSets(ctx context.Context, sets []listenerSet, candidates []gatewayv1.HTTPRoute) ([]gatewayv1.HTTPRoute, error) {
	if g.RouteParentIndex == "" || len(sets) == 0 {
		return candidates, nil
	}
	seen := make(map[types.NamespacedName]bool, len(candidates))
	for i := range candidates {
		seen[client.ObjectKeyFromObject(&candidates[i])] = true
	}
	out := candidates
	for _, set := range sets {
		var naming gatewayv1.HTTPRouteList
		// The cache's own routes, not copied: a judgement only reads them.
		if err := g.Reader.List(ctx, &naming, client.MatchingFields{g.RouteParentIndex: ListenerSetRouteKey(client.ObjectKeyFromObject(set.item))}, client.UnsafeDisableDeepCopy); err != nil {
			return nil, err
		}
		for _, route := range naming.Items {
			if key := client.ObjectKeyFromObject(&route); !seen[key] {
				seen[key] = true
				out = append(out, route)
			}
		}
	}
	return out, nil
}

// listenerSetParent is the Gateway that ref, a parentRef of route naming the ListenerSet
// key, reaches: the ListenerSet's Gateway, when the ListenerSet is attached to it and
// takes route on at least one listener; nil otherwise.
func (p *parentReads) listenerSetParent(ctx context.Context, route routes.Route, ref gatewayv1.ParentReference, key types.NamespacedName, labels map[string]string) (*gatewayv1.Gateway, error) {
	ls := &gatewayv1.ListenerSet{}
	if err := p.g.Reader.Get(ctx, key, ls); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	gwKey, isGateway := attach.ListenerSetParent(ls)
	if !isGateway {
		return nil, nil
	}
	gw, err := p.gateway(ctx, gwKey)
	if err != nil || gw == nil {
		return nil, err
	}
	serves := p.servesOf(ctx, gw)
	sets, read := p.sets[gwKey]
	if !read {
		if sets, err = p.g.attachedListenerSets(ctx, gw, serves); err != nil {
			return nil, err
		}
		p.sets[gwKey] = sets
	}
	for _, set := range sets {
		if client.ObjectKeyFromObject(set.item) == key && len(attach.AttachToListenerSet(set.item, set.verdict, serves, attach.RouteOf(route), ref, labels).Listeners) > 0 {
			return gw, nil
		}
	}
	return nil, nil
}
