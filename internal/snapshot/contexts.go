package snapshot

import (
	"context"
	"sort"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
)

// Context is a Gateway, or an HTTPRoute on a Gateway: something whose values a policy
// can take part in. A policy is judged over every context it reaches, because a default
// on a Gateway can be beaten on one route of it and not on another.
type Context struct {
	Gateway *gatewayv1.Gateway
	Route   *gatewayv1.HTTPRoute // nil for the Gateway's own values
}

func (c Context) String() string {
	gw := "Gateway " + c.Gateway.Namespace + "/" + c.Gateway.Name
	if c.Route == nil {
		return gw
	}
	return "HTTPRoute " + c.Route.Namespace + "/" + c.Route.Name + " on " + gw
}

// Reach finds the contexts a policy's targets reach, through Reader.
type Reach struct {
	Reader              client.Reader
	ControllerNamespace string
	// ClassIndex names a field index of Gateways by spec.gatewayClassName that Reader
	// serves (the controller's cache has one). Without it the Gateways are listed and
	// filtered by class as they are read: the API server and files have no such index.
	ClassIndex string
}

// ContextsReached lists the contexts whose values the target of a policy in namespace
// may reach: the Gateways it reaches with the routes on them, and, for a Namespace or
// GatewayClass target, the routes of the policy's namespace on Gateways elsewhere. The
// values engine decides which of them the policy really takes part in.
func (r Reach) ContextsReached(ctx context.Context, namespace string, target gatewayv1.LocalPolicyTargetReference) ([]Context, error) {
	if target.Kind == "HTTPRoute" {
		return r.routeContexts(ctx, namespace, string(target.Name))
	}
	gateways, err := r.gatewaysReached(ctx, namespace, target)
	if err != nil {
		return nil, err
	}
	var out []Context
	if len(gateways) > 0 {
		var all gatewayv1.HTTPRouteList
		if err := r.Reader.List(ctx, &all); err != nil {
			return nil, err
		}
		for i := range gateways {
			gw := &gateways[i]
			out = append(out, Context{Gateway: gw})
			a, err := AttachedAmong(ctx, r.Reader, gw, all.Items)
			if err != nil {
				return nil, err
			}
			for j := range a.Routes {
				out = append(out, Context{Gateway: gw, Route: &a.Routes[j]})
			}
		}
	}
	if target.Kind == "Namespace" || (target.Kind == "GatewayClass" && namespace != r.ControllerNamespace) {
		elsewhere, err := r.routesOnGatewaysElsewhere(ctx, namespace)
		if err != nil {
			return nil, err
		}
		out = append(out, elsewhere...)
	}
	return out, nil
}

// gatewaysReached lists, sorted, the Gateways whose values the target can reach.
func (r Reach) gatewaysReached(ctx context.Context, namespace string, target gatewayv1.LocalPolicyTargetReference) ([]gatewayv1.Gateway, error) {
	var gateways gatewayv1.GatewayList
	switch target.Kind {
	case "GatewayClass":
		var opts []client.ListOption
		if r.ClassIndex != "" {
			opts = append(opts, client.MatchingFields{r.ClassIndex: string(target.Name)})
		}
		if namespace != r.ControllerNamespace {
			opts = append(opts, client.InNamespace(namespace))
		}
		if err := r.Reader.List(ctx, &gateways, opts...); err != nil {
			return nil, err
		}
		gateways.Items = ofClass(gateways.Items, string(target.Name))
	case "Namespace":
		if err := r.Reader.List(ctx, &gateways, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
	case "Gateway":
		gw := gatewayv1.Gateway{}
		if err := r.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: string(target.Name)}, &gw); err != nil {
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

// routeContexts are one route of namespace on each of its parent Gateways.
func (r Reach) routeContexts(ctx context.Context, namespace, name string) ([]Context, error) {
	route := &gatewayv1.HTTPRoute{}
	if err := r.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, route); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return r.parentContexts(ctx, route, func(*gatewayv1.Gateway) bool { return true })
}

// routesOnGatewaysElsewhere are the routes of namespace on parent Gateways of other
// namespaces, which only route-level policies of namespace reach there.
func (r Reach) routesOnGatewaysElsewhere(ctx context.Context, namespace string) ([]Context, error) {
	var routes gatewayv1.HTTPRouteList
	if err := r.Reader.List(ctx, &routes, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	sort.Slice(routes.Items, func(i, j int) bool { return routes.Items[i].Name < routes.Items[j].Name })
	var out []Context
	for i := range routes.Items {
		contexts, err := r.parentContexts(ctx, &routes.Items[i], func(gw *gatewayv1.Gateway) bool { return gw.Namespace != namespace })
		if err != nil {
			return nil, err
		}
		out = append(out, contexts...)
	}
	return out, nil
}

// parentContexts are route on each parent Gateway that include keeps and that at
// least one listener of attaches it to.
func (r Reach) parentContexts(ctx context.Context, route *gatewayv1.HTTPRoute, include func(*gatewayv1.Gateway) bool) ([]Context, error) {
	labels, err := NamespaceLabels(ctx, r.Reader, route.Namespace)
	if err != nil {
		return nil, err
	}
	gateways, err := ParentGateways(ctx, r.Reader, route)
	if err != nil {
		return nil, err
	}
	var out []Context
	for _, gw := range gateways {
		if include(gw) && len(attach.Listeners(gw, route, labels)) > 0 {
			out = append(out, Context{Gateway: gw, Route: route})
		}
	}
	return out, nil
}
