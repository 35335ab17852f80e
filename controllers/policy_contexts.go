package controllers

import (
	"context"
	"sort"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/snapshot"
)

// valuesContext is a Gateway, or an HTTPRoute on a Gateway: something whose values a
// policy can take part in. A policy is judged over every context it reaches, because a
// default on a Gateway can be beaten on one route of it and not on another.
type valuesContext struct {
	gateway *gatewayv1.Gateway
	route   *gatewayv1.HTTPRoute // nil for the Gateway's own values
}

func (c valuesContext) String() string {
	gw := "Gateway " + c.gateway.Namespace + "/" + c.gateway.Name
	if c.route == nil {
		return gw
	}
	return "HTTPRoute " + c.route.Namespace + "/" + c.route.Name + " on " + gw
}

// contextsReached lists the contexts whose values the target of a policy in namespace
// may reach: the Gateways it reaches with the routes on them, and, for a Namespace or
// GatewayClass target, the routes of the policy's namespace on Gateways elsewhere. The
// values engine decides which of them the policy really takes part in.
func (r *PolicyReconciler) contextsReached(ctx context.Context, namespace string, target gatewayv1.LocalPolicyTargetReference) ([]valuesContext, error) {
	if target.Kind == "HTTPRoute" {
		return r.routeContexts(ctx, namespace, string(target.Name))
	}
	gateways, err := r.gatewaysReached(ctx, namespace, target)
	if err != nil {
		return nil, err
	}
	var all gatewayv1.HTTPRouteList
	if err := r.List(ctx, &all); err != nil {
		return nil, err
	}
	var out []valuesContext
	for i := range gateways {
		gw := &gateways[i]
		out = append(out, valuesContext{gateway: gw})
		routes, _, err := snapshot.AttachedAmong(ctx, r.Client, gw, all.Items)
		if err != nil {
			return nil, err
		}
		for j := range routes {
			out = append(out, valuesContext{gateway: gw, route: &routes[j]})
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
func (r *PolicyReconciler) gatewaysReached(ctx context.Context, namespace string, target gatewayv1.LocalPolicyTargetReference) ([]gatewayv1.Gateway, error) {
	var gateways gatewayv1.GatewayList
	switch target.Kind {
	case "GatewayClass":
		opts := []client.ListOption{client.MatchingFields{indexGatewayClassName: string(target.Name)}}
		if namespace != r.ControllerNamespace {
			opts = append(opts, client.InNamespace(namespace))
		}
		if err := r.List(ctx, &gateways, opts...); err != nil {
			return nil, err
		}
	case "Namespace":
		if err := r.List(ctx, &gateways, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
	case "Gateway":
		gw := gatewayv1.Gateway{}
		if err := r.Get(ctx, client.ObjectKey{Namespace: namespace, Name: string(target.Name)}, &gw); err != nil {
			return nil, client.IgnoreNotFound(err)
		}
		gateways.Items = []gatewayv1.Gateway{gw}
	}
	sort.Slice(gateways.Items, func(i, j int) bool {
		return gateways.Items[i].Namespace+"/"+gateways.Items[i].Name < gateways.Items[j].Namespace+"/"+gateways.Items[j].Name
	})
	return gateways.Items, nil
}

// routeContexts are one route of namespace on each of its parent Gateways.
func (r *PolicyReconciler) routeContexts(ctx context.Context, namespace, name string) ([]valuesContext, error) {
	route := &gatewayv1.HTTPRoute{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, route); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return r.parentContexts(ctx, route, func(*gatewayv1.Gateway) bool { return true })
}

// routesOnGatewaysElsewhere are the routes of namespace on parent Gateways of other
// namespaces, which only route-level policies of namespace reach there.
func (r *PolicyReconciler) routesOnGatewaysElsewhere(ctx context.Context, namespace string) ([]valuesContext, error) {
	var routes gatewayv1.HTTPRouteList
	if err := r.List(ctx, &routes, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	sort.Slice(routes.Items, func(i, j int) bool { return routes.Items[i].Name < routes.Items[j].Name })
	var out []valuesContext
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
func (r *PolicyReconciler) parentContexts(ctx context.Context, route *gatewayv1.HTTPRoute, include func(*gatewayv1.Gateway) bool) ([]valuesContext, error) {
	labels, err := snapshot.NamespaceLabels(ctx, r.Client, route.Namespace)
	if err != nil {
		return nil, err
	}
	gateways, err := snapshot.ParentGateways(ctx, r.Client, route)
	if err != nil {
		return nil, err
	}
	var out []valuesContext
	for _, gw := range gateways {
		if include(gw) && len(attach.Listeners(gw, route, labels)) > 0 {
			out = append(out, valuesContext{gateway: gw, route: route})
		}
	}
	return out, nil
}
