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

// ListenerSets judges candidates, ListenerSets whose parentRef names gw, on a class that
// serves what serves says, own being the verdicts of gw's own listeners (Listeners): the
// labels of their namespaces are read when gw selects ListenerSets by them, and their
// certificateRefs are resolved from their namespaces, with the ReferenceGrants there.
// The verdicts are in the specification's precedence (listeners.EvaluateSets); those past
// listeners.MaxGatewayListenerSets cost no read.
func (g *Gatherer) ListenerSets(ctx context.Context, gw *gatewayv1.Gateway, serves listeners.Serves, own []listeners.Status, candidates []gatewayv1.ListenerSet) ([]listeners.SetVerdict, error) {
	if len(candidates) == 0 {
		return nil, nil
	}
	bySelector := gw.Spec.AllowedListeners != nil && gw.Spec.AllowedListeners.Namespaces != nil &&
		gw.Spec.AllowedListeners.Namespaces.From != nil && *gw.Spec.AllowedListeners.Namespaces.From == gatewayv1.NamespacesFromSelector
	byRef := make(map[listeners.SetRef]*gatewayv1.ListenerSet, len(candidates))
	sets := make([]listeners.Set, len(candidates))
	for i := range candidates {
		sets[i] = listeners.SetOf(&candidates[i], nil)
		byRef[sets[i].Ref] = &candidates[i]
	}
	// Those past the bound are refused unread.
	sets = listeners.InPrecedence(sets)
	labelsOf := map[string]map[string]string{}
	for i := range sets[:min(len(sets), listeners.MaxGatewayListenerSets)] {
		set, ls := &sets[i], byRef[sets[i].Ref]
		labels, read := labelsOf[ls.Namespace]
		if bySelector && !read {
			var err error
			if labels, err = g.NamespaceLabels(ctx, ls.Namespace); err != nil {
				return nil, g.reading(err, "the namespace of ListenerSet %s/%s", ls.Namespace, ls.Name)
			}
			labelsOf[ls.Namespace] = labels
		}
		set.NamespaceLabels = labels
		// Only the certificateRefs of a ListenerSet the Gateway allows are resolved: one it
		// refuses costs no Secret read, however many a tenant creates.
		if listeners.NotAllowed(serves, gw, set) != "" {
			continue
		}
		var namespaces []string
		for _, l := range set.Listeners {
			if l.TLS == nil {
				continue
			}
			for _, ref := range l.TLS.CertificateRefs {
				if ref.Namespace != nil {
					namespaces = append(namespaces, string(*ref.Namespace))
				}
			}
		}
		grants, err := g.grantsIn(ctx, ls.Namespace, namespaces)
		if err != nil {
			return nil, g.reading(err, "the ReferenceGrants of ListenerSet %s/%s", ls.Namespace, ls.Name)
		}
		if set.CertificateRefs, err = attach.ResolveListenerSetCertificateRefs(ls, serves, grants, g.secretCheck(ctx, gw)); err != nil {
			return nil, err
		}
	}
	return listeners.EvaluateSets(serves, gw, own, sets), nil
}

// ListenerSetRouteKey is how RouteParentIndex names a ListenerSet that a route's parentRef
// names: apart from the Gateways, whose keys ("namespace/name") have no ":".
func ListenerSetRouteKey(key types.NamespacedName) string { return "ListenerSet:" + key.String() }

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
func (g *Gatherer) routesOnListenerSets(ctx context.Context, sets []listenerSet, candidates []*gatewayv1.HTTPRoute) ([]*gatewayv1.HTTPRoute, error) {
	if g.RouteParentIndex == "" || len(sets) == 0 {
		return candidates, nil
	}
	seen := make(map[types.NamespacedName]bool, len(candidates))
	for _, route := range candidates {
		seen[client.ObjectKeyFromObject(route)] = true
	}
	out := candidates
	for _, set := range sets {
		var naming gatewayv1.HTTPRouteList
		// The cache's own routes, not copied: a judgement only reads them.
		if err := g.Reader.List(ctx, &naming, client.MatchingFields{g.RouteParentIndex: ListenerSetRouteKey(client.ObjectKeyFromObject(set.item))}, client.UnsafeDisableDeepCopy); err != nil {
			return nil, err
		}
		for _, route := range routes.HTTPRoutes(&naming) {
			if key := client.ObjectKeyFromObject(route); !seen[key] {
				seen[key] = true
				out = append(out, route)
			}
		}
	}
	return out, nil
}
