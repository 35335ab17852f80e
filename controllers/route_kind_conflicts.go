package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/snapshot"
)

// kindConflict is why parent's route table refuses route for sharing a hostname on a
// listener with an older route of the other kind of HTTPRoute and GRPCRoute, nil when it
// does not: the route's status says it as the table does, since the Gateway's record
// keeps no word of it. Only a class serving both kinds pays for the reads; judge gives
// the Gateway's ListenerSets, judged once per parent.
func (r *RouteReconciler) kindConflict(ctx context.Context, g *snapshot.Gatherer, route routes.Route, parent routeParent, serves listeners.Serves, cutoff *gatewrightv1alpha1.RouteCutoff, judge func() ([]gatewayv1.ListenerSet, []listeners.SetVerdict, error)) (*routing.Refusal, error) {
	if r.otherConflictingKind() == "" || !serves.RouteKind(routes.KindHTTPRoute) || !serves.RouteKind(routes.KindGRPCRoute) {
		return nil, nil
	}
	var items []gatewayv1.ListenerSet
	var verdicts []listeners.SetVerdict
	if r.listenerSets {
		var err error
		if items, verdicts, err = judge(); err != nil {
			return nil, err
		}
	}
	return g.KindConflict(ctx, parent.gateway, serves, route, items, verdicts, cutoff)
}

// otherConflictingKind is the kind whose routes may refuse this reconciler's for a
// shared hostname (HTTPRoute for GRPCRoute, and back), when the API server serves both;
// empty otherwise.
func (r *RouteReconciler) otherConflictingKind() string {
	if !r.kindConflicts {
		return ""
	}
	return routes.HostnameRival(r.Kind)
}

// routesBesideOtherKind maps a route of the other conflicting kind, as it was and as it
// is, to this reconciler's routes on the Gateways it names, directly or through their
// ListenerSets, whose hostnames may meet its own: its coming, going or new hostnames may
// refuse them, or accept them again. A GRPCRoute's edit wakes the few HTTPRoutes of its
// hostnames, not every one of a Gateway of thousands.
func (r *RouteReconciler) routesBesideOtherKind(ctx context.Context, obj client.Object) []reconcile.Request {
	route, ok := obj.(routes.Route)
	if !ok {
		return nil
	}
	seen := map[types.NamespacedName]bool{}
	var near []routes.Route
	add := func(gw types.NamespacedName) {
		if seen[gw] {
			return
		}
		seen[gw] = true
		parent := &gatewayv1.Gateway{}
		parent.Namespace, parent.Name = gw.Namespace, gw.Name
		named, err := r.routesNamingGateway(ctx, parent)
		if err != nil {
			return
		}
		for _, candidate := range named {
			if routing.HostnamesMayMeet(routes.Hostnames(candidate), routes.Hostnames(route)) {
				near = append(near, candidate)
			}
		}
	}
	for _, ref := range routes.ParentRefs(route) {
		if key, isGateway := attach.ParentGateway(route, ref); isGateway {
			add(key)
			continue
		}
		key, isListenerSet := attach.ParentListenerSet(route.GetNamespace(), ref)
		if !isListenerSet || !r.listenerSets {
			continue
		}
		ls := &gatewayv1.ListenerSet{}
		if err := r.Get(ctx, key, ls); err != nil {
			continue // gone: no Gateway of it to wake
		}
		if gw, isGateway := attach.ListenerSetParent(ls); isGateway {
			add(gw)
		}
	}
	return requestsForRoutes(near)
}

// otherKindRefusedChanged passes the records of routes of kind, part 0, whose own
// templates came to refuse them or no longer do: a route so refused takes no part in
// the conflicts, so its routes of the other kind may be refused or accepted again.
func otherKindRefusedChanged(kind string) builder.Predicates {
	refused := func(obj client.Object) bool {
		rec, ok := obj.(*gatewrightv1alpha1.Rendering)
		return ok && rec.Part == 0 && rec.Owner.Kind == kind && rec.RouteRefused != ""
	}
	return builder.WithPredicates(predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return refused(e.Object) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return refused(e.Object) },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc:  func(e event.UpdateEvent) bool { return refused(e.ObjectOld) != refused(e.ObjectNew) },
	})
}

// routesOfRecordsGateway maps a route's record to this reconciler's routes on the
// Gateway it was rendered for.
func (r *RouteReconciler) routesOfRecordsGateway(ctx context.Context, obj client.Object) []reconcile.Request {
	rec, ok := obj.(*gatewrightv1alpha1.Rendering)
	if !ok || rec.Owner.GatewayName == "" {
		return nil
	}
	gw := &gatewayv1.Gateway{}
	gw.Namespace, gw.Name = rec.Owner.GatewayNamespace, rec.Owner.GatewayName
	return r.routesOfGateway(ctx, gw)
}
