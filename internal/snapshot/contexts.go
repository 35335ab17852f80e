package snapshot

import (
	"context"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
)

// Context is a Gateway, or a route of any kind on a Gateway: something whose values a
// policy can take part in. A policy is judged over every context it reaches, because a
// default on a Gateway can be beaten on one route of it and not on another.
type Context struct {
	Gateway *gatewayv1.Gateway
	Route   routes.Route // nil for the Gateway's own values
}

func (c Context) String() string {
	gw := "Gateway " + c.Gateway.Namespace + "/" + c.Gateway.Name
	if c.Route == nil {
		return gw
	}
	return routes.KindOf(c.Route) + " " + c.Route.GetNamespace() + "/" + c.Route.GetName() + " on " + gw
}

// contextsReached lists the contexts whose values the target of a policy in namespace
// may reach: the Gateways it reaches with the routes on them, and, for a Namespace or
// GatewayClass target, the routes of the policy's namespace on Gateways elsewhere. The
// values engine decides which of them the policy really takes part in.
func (g *Gatherer) contextsReached(ctx context.Context, namespace string, target gatewayv1.LocalPolicyTargetReference) ([]Context, error) {
	if routes.IsKind(string(target.Kind)) {
		return g.routeContexts(ctx, string(target.Kind), namespace, string(target.Name))
	}
	gateways, err := g.gatewaysReached(ctx, namespace, target)
	if err != nil {
		return nil, err
	}
	var out []Context
	var all *gatewayv1.HTTPRouteList
	allOthers := map[string][]routes.Route{}
	for i := range gateways {
		gw := &gateways[i]
		out = append(out, Context{Gateway: gw})
		candidates, err := g.routesNaming(ctx, gw, &all)
		if err != nil {
			return nil, err
		}
		serves := g.contextServes(ctx, gw)
		sets, err := g.attachedListenerSets(ctx, gw, serves)
		if err != nil {
			return nil, err
		}
		if candidates, err = g.routesOnListenerSets(ctx, sets, candidates); err != nil {
			return nil, err
		}
		others, err := g.otherRoutesNaming(ctx, gw, sets, allOthers)
		if err != nil {
			return nil, err
		}
		a, err := g.attached(ctx, gw, serves, candidates, others, sets)
		if err != nil {
			return nil, err
		}
		for _, route := range a.routes {
			out = append(out, Context{Gateway: gw, Route: route})
		}
		for _, route := range a.others {
			out = append(out, Context{Gateway: gw, Route: route})
		}
	}
	if target.Kind == "Namespace" || (target.Kind == "GatewayClass" && namespace != g.ControllerNamespace) {
		elsewhere, err := g.routesOnGatewaysElsewhere(ctx, namespace)
		if err != nil {
			return nil, err
		}
		out = append(out, elsewhere...)
	}
	return out, nil
}

// routesNaming lists the HTTPRoutes that may attach to gw: those whose parentRefs name
// it, through HTTPRoutesNaming or RouteParentIndex; without either every one, listed
// once into *all for every Gateway of the pass.
func (g *Gatherer) routesNaming(ctx context.Context, gw *gatewayv1.Gateway, all **gatewayv1.HTTPRouteList) ([]*gatewayv1.HTTPRoute, error) {
	if g.HTTPRoutesNaming != nil {
		return g.HTTPRoutesNaming(gw)
	}
	if g.RouteParentIndex != "" {
		var naming gatewayv1.HTTPRouteList
		// The cache's own routes, not copied: a judgement only reads them.
		err := g.Reader.List(ctx, &naming, client.MatchingFields{g.RouteParentIndex: client.ObjectKeyFromObject(gw).String()}, client.UnsafeDisableDeepCopy)
		return routes.HTTPRoutes(&naming), err
	}
	if *all == nil {
		*all = &gatewayv1.HTTPRouteList{}
		if err := g.Reader.List(ctx, *all); err != nil {
			*all = nil
			return nil, err
		}
	}
	return routes.HTTPRoutes(*all), nil
}

// otherRoutesNaming lists the routes of OtherRouteKinds that may attach to gw: those
// whose parentRefs name it or one of sets, through RouteParentIndex; without it every
// one of each kind, listed once into all for every Gateway of the pass.
func (g *Gatherer) otherRoutesNaming(ctx context.Context, gw *gatewayv1.Gateway, sets []listenerSet, all map[string][]routes.Route) ([]routes.Route, error) {
	var out []routes.Route
	for _, kind := range g.OtherRouteKinds {
		named, err := g.kindNaming(ctx, kind, gw, sets, all)
		if err != nil {
			return nil, err
		}
		out = append(out, named...)
	}
	return out, nil
}

// kindNaming lists the routes of kind that may attach to gw: those whose parentRefs
// name it or one of sets, through RouteParentIndex; without it every one of kind, listed
// once into all. A kind the API server does not serve has none.
func (g *Gatherer) kindNaming(ctx context.Context, kind string, gw *gatewayv1.Gateway, sets []listenerSet, all map[string][]routes.Route) ([]routes.Route, error) {
	if g.RouteParentIndex == "" {
		items, listed := all[kind]
		if !listed {
			list := routes.NewList(kind)
			if err := g.Reader.List(ctx, list); err != nil && !meta.IsNoMatchError(err) {
				return nil, err
			}
			items = routes.Items(list)
			all[kind] = items
		}
		return items, nil
	}
	keys := []string{client.ObjectKeyFromObject(gw).String()}
	for _, set := range sets {
		keys = append(keys, ListenerSetRouteKey(client.ObjectKeyFromObject(set.item)))
	}
	var out []routes.Route
	seen := map[types.NamespacedName]bool{}
	for _, key := range keys {
		list := routes.NewList(kind)
		// The cache's own routes, not copied: a judgement only reads them.
		if err := g.Reader.List(ctx, list, client.MatchingFields{g.RouteParentIndex: key}, client.UnsafeDisableDeepCopy); err != nil {
			if meta.IsNoMatchError(err) {
				break
			}
			return nil, err
		}
		for _, route := range routes.Items(list) {
			if name := client.ObjectKeyFromObject(route); !seen[name] {
				seen[name] = true
				out = append(out, route)
			}
		}
	}
	return out, nil
}

// gatewaysReached lists, sorted, the Gateways whose values the target can reach.
func (g *Gatherer) gatewaysReached(ctx context.Context, namespace string, target gatewayv1.LocalPolicyTargetReference) ([]gatewayv1.Gateway, error) {
	var gateways gatewayv1.GatewayList
	switch target.Kind {
	case "GatewayClass":
		var opts []client.ListOption
		if g.GatewayClassIndex != "" {
			opts = append(opts, client.MatchingFields{g.GatewayClassIndex: string(target.Name)})
		}
		if namespace != g.ControllerNamespace {
			opts = append(opts, client.InNamespace(namespace))
		}
		if err := g.Reader.List(ctx, &gateways, opts...); err != nil {
			return nil, err
		}
		gateways.Items = ofClass(gateways.Items, string(target.Name))
	case "Namespace":
		if err := g.Reader.List(ctx, &gateways, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
	case "Gateway":
		gw := gatewayv1.Gateway{}
		if err := g.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: string(target.Name)}, &gw); err != nil {
			return nil, client.IgnoreNotFound(err)
		}
		gateways.Items = []gatewayv1.Gateway{gw}
	}
	sort.Slice(gateways.Items, func(i, j int) bool {
		return gateways.Items[i].Namespace+"/"+gateways.Items[i].Name < gateways.Items[j].Namespace+"/"+gateways.Items[j].Name
	})
	return gateways.Items, nil
}

// ofClass keeps the Gateways of class, in place.
func ofClass(gateways []gatewayv1.Gateway, class string) []gatewayv1.Gateway {
	kept := gateways[:0]
	for _, gw := range gateways {
		if string(gw.Spec.GatewayClassName) == class {
			kept = append(kept, gw)
		}
	}
	return kept
}

// routeContexts are one route of kind and namespace on each of its parent Gateways.
func (g *Gatherer) routeContexts(ctx context.Context, kind, namespace, name string) ([]Context, error) {
	route := routes.New(kind)
	if err := g.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, route); err != nil {
		if meta.IsNoMatchError(err) {
			return nil, nil // a kind the API server does not serve has no routes
		}
		return nil, client.IgnoreNotFound(err)
	}
	return g.newParentReads().contexts(ctx, route, func(*gatewayv1.Gateway) bool { return true })
}

// routesOnGatewaysElsewhere are the routes of namespace on parent Gateways of other
// namespaces, which only route-level policies of namespace reach there.
func (g *Gatherer) routesOnGatewaysElsewhere(ctx context.Context, namespace string) ([]Context, error) {
	reads := g.newParentReads()
	var out []Context
	for _, kind := range append([]string{routes.KindHTTPRoute}, g.OtherRouteKinds...) {
		list := routes.NewList(kind)
		// The cache's own routes, not copied: a judgement only reads them.
		if err := g.Reader.List(ctx, list, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return nil, err
		}
		items := routes.Items(list)
		sort.Slice(items, func(i, j int) bool { return items[i].GetName() < items[j].GetName() })
		for _, route := range items {
			contexts, err := reads.contexts(ctx, route, func(gw *gatewayv1.Gateway) bool { return gw.Namespace != namespace })
			if err != nil {
				return nil, err
			}
			out = append(out, contexts...)
		}
	}
	return out, nil
}

// parentReads reads what routes' contexts on their parent Gateways depend on, each
// Namespace, Gateway and what its class serves once: a namespace's thousands of routes
// on one shared Gateway would otherwise read the same objects once per route.
type parentReads struct {
	g        *Gatherer
	labels   map[string]map[string]string
	gateways map[client.ObjectKey]*gatewayv1.Gateway // nil for one that is not there
	serves   map[client.ObjectKey]listeners.Serves
	attach   map[client.ObjectKey]*attach.Gateway // each Gateway's listeners, judged once
	sets     map[client.ObjectKey][]listenerSet   // the attached ListenerSets of each Gateway
}

func (g *Gatherer) newParentReads() *parentReads {
	return &parentReads{g: g, labels: map[string]map[string]string{}, gateways: map[client.ObjectKey]*gatewayv1.Gateway{}, serves: map[client.ObjectKey]listeners.Serves{}, attach: map[client.ObjectKey]*attach.Gateway{}, sets: map[client.ObjectKey][]listenerSet{}}
}

// contexts are route on each parent Gateway that include keeps and that at least one
// listener of attaches it to.
func (p *parentReads) contexts(ctx context.Context, route routes.Route, include func(*gatewayv1.Gateway) bool) ([]Context, error) {
	labels, ok := p.labels[route.GetNamespace()]
	if !ok {
		var err error
		if labels, err = p.g.NamespaceLabels(ctx, route.GetNamespace()); err != nil {
			return nil, err
		}
		p.labels[route.GetNamespace()] = labels
	}
	var out []Context
	for _, ref := range routes.ParentRefs(route) {
		gw, err := p.parent(ctx, route, ref, labels)
		if err != nil {
			return nil, err
		}
		if gw == nil || !include(gw) || slices.ContainsFunc(out, func(c Context) bool { return c.Gateway == gw }) {
			continue
		}
		out = append(out, Context{Gateway: gw, Route: route})
	}
	return out, nil
}

// parent is the Gateway that ref, a parentRef of route, attaches it to, directly or
// through one of the Gateway's ListenerSets; nil when it attaches it to none.
func (p *parentReads) parent(ctx context.Context, route routes.Route, ref gatewayv1.ParentReference, labels map[string]string) (*gatewayv1.Gateway, error) {
	if key, isListenerSet := attach.ParentListenerSet(route.GetNamespace(), ref); isListenerSet {
		return p.listenerSetParent(ctx, route, ref, key, labels)
	}
	key, isGateway := attach.ParentGateway(route, ref)
	if !isGateway {
		return nil, nil
	}
	gw, err := p.gateway(ctx, key)
	if err != nil || gw == nil {
		return nil, err
	}
	if len(p.attachTo(ctx, gw).Listeners(attach.RouteOf(route), labels)) == 0 {
		return nil, nil
	}
	return gw, nil
}

// servesOf is what gw's class serves, read once per Gateway.
func (p *parentReads) servesOf(ctx context.Context, gw *gatewayv1.Gateway) listeners.Serves {
	key := client.ObjectKeyFromObject(gw)
	serves, ok := p.serves[key]
	if !ok {
		serves = p.g.contextServes(ctx, gw)
		p.serves[key] = serves
	}
	return serves
}

// attachTo attaches routes to gw, its listeners judged once.
func (p *parentReads) attachTo(ctx context.Context, gw *gatewayv1.Gateway) *attach.Gateway {
	key := client.ObjectKeyFromObject(gw)
	to, ok := p.attach[key]
	if !ok {
		to = attach.ToGateway(gw, p.servesOf(ctx, gw))
		p.attach[key] = to
	}
	return to
}

func (p *parentReads) gateway(ctx context.Context, key client.ObjectKey) (*gatewayv1.Gateway, error) {
	if gw, read := p.gateways[key]; read {
		return gw, nil
	}
	gw := &gatewayv1.Gateway{}
	if err := p.g.Reader.Get(ctx, key, gw); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return nil, err
		}
		gw = nil
	}
	p.gateways[key] = gw
	return gw, nil
}
