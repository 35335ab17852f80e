package controllers

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/routes"
)

// gatewayChangedForRoutes passes a Gateway event when what route templates see of it
// changed: its spec (.Gateway); its status.addresses, since a per-route object (a DNS
// record, say) may need the address the Gateway publishes once its infrastructure is up;
// or a listener's verdict (.Listeners), which the Gateway reconciler writes when a
// certificate Secret or a ReferenceGrant changes it. Other status writes (Programmed,
// attachedRoutes) would only wake every route for nothing.
var gatewayChangedForRoutes = predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, oldOK := e.ObjectOld.(*gatewayv1.Gateway)
		updated, newOK := e.ObjectNew.(*gatewayv1.Gateway)
		return oldOK && newOK && (!equality.Semantic.DeepEqual(old.Status.Addresses, updated.Status.Addresses) ||
			!slices.Equal(listenerVerdicts(old), listenerVerdicts(updated)))
	},
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
})

// listenerVerdicts lists what the status says of each listener's Accepted and
// ResolvedRefs, the conditions that decide .Listeners' valid, reason and certificateRefs.
func listenerVerdicts(gw *gatewayv1.Gateway) []string {
	var out []string
	for _, l := range gw.Status.Listeners {
		for _, c := range l.Conditions {
			if c.Type == string(gatewayv1.ListenerConditionAccepted) || c.Type == string(gatewayv1.ListenerConditionResolvedRefs) {
				out = append(out, string(l.Name)+"/"+c.Type+"/"+string(c.Status)+"/"+c.Reason+"/"+c.Message)
			}
		}
	}
	return out
}

// routesOfGateway: the routes that name the Gateway, and those that name one of its
// ListenerSets, whose status follows the Gateway's as much.
func (r *RouteReconciler) routesOfGateway(ctx context.Context, obj client.Object) []reconcile.Request {
	named, err := r.routesNamingGateway(ctx, obj)
	if err != nil {
		return nil
	}
	return requestsForRoutes(named)
}

// routesNamingGateway are the routes that name the Gateway, and those that name one of
// its ListenerSets.
func (r *RouteReconciler) routesNamingGateway(ctx context.Context, gw client.Object) ([]routes.Route, error) {
	named, err := routesOf(ctx, r.Client, r.Kind, gw)
	if err != nil || !r.listenerSets {
		return named, err
	}
	sets, err := listenerSetsOf(ctx, r.Client, gw, client.UnsafeDisableDeepCopy) // only read
	if err != nil {
		return nil, err
	}
	onSets, err := routesOnListenerSets(ctx, r.Client, r.Kind, pointersTo(sets))
	return append(named, onSets...), err
}

// routesOfListenerSet: the routes that name the ListenerSet, whose status its verdict
// (written with its status) decides.
func (r *RouteReconciler) routesOfListenerSet(ctx context.Context, obj client.Object) []reconcile.Request {
	named, err := routesOnListenerSets(ctx, r.Client, r.Kind, []*gatewayv1.ListenerSet{obj.(*gatewayv1.ListenerSet)})
	if err != nil {
		return nil
	}
	return requestsForRoutes(named)
}

func pointersTo(sets []gatewayv1.ListenerSet) []*gatewayv1.ListenerSet {
	out := make([]*gatewayv1.ListenerSet, len(sets))
	for i := range sets {
		out[i] = &sets[i]
	}
	return out
}

func requestsForRoutes(named []routes.Route) []reconcile.Request {
	names := make([]types.NamespacedName, len(named))
	for i, route := range named {
		names[i] = types.NamespacedName{Namespace: route.GetNamespace(), Name: route.GetName()}
	}
	return ctrlutil.RequestsFor(names)
}

// routesOnGateways lists the routes that name one of the Gateways opts select, through
// the parentRef index: a route of no such Gateway is not even looked at. The Gateways
// are the cache's, not copied: a class-wide policy's change maps to every one, and they
// are only read.
func (r *RouteReconciler) routesOnGateways(ctx context.Context, opts ...client.ListOption) []reconcile.Request {
	var gateways gatewayv1.GatewayList
	if err := r.List(ctx, &gateways, append(opts, client.UnsafeDisableDeepCopy)...); err != nil {
		return nil
	}
	var requests []reconcile.Request
	for i := range gateways.Items {
		requests = append(requests, r.routesOfGateway(ctx, &gateways.Items[i])...)
	}
	return requests
}

// routesOfClasses lists the routes on Gateways of the named classes.
func (r *RouteReconciler) routesOfClasses(ctx context.Context, classes map[string]bool) []reconcile.Request {
	var requests []reconcile.Request
	for class := range classes {
		requests = append(requests, r.routesOnGateways(ctx, client.MatchingFields{indexGatewayClassName: class})...)
	}
	return requests
}

func (r *RouteReconciler) routesOfClass(ctx context.Context, obj client.Object) []reconcile.Request {
	return r.routesOfClasses(ctx, map[string]bool{obj.GetName(): true})
}

func (r *RouteReconciler) routesOfBlueprint(ctx context.Context, obj client.Object) []reconcile.Request {
	using, _ := classesUsing(ctx, r.Client, obj.GetName()) // a map function has nowhere to report it
	classes := map[string]bool{}
	for _, class := range using {
		classes[class.Name] = true
	}
	return r.routesOfClasses(ctx, classes)
}

// routesNearPolicy: a policy in the controller namespace may reach routes anywhere;
// elsewhere it reaches the routes of its namespace and the routes on its namespace's
// Gateways.
func (r *RouteReconciler) routesNearPolicy(ctx context.Context, obj client.Object) []reconcile.Request {
	if obj.GetNamespace() == r.ControllerNamespace {
		return r.routesOnGateways(ctx)
	}
	requests := r.routesOnGateways(ctx, client.InNamespace(obj.GetNamespace()))
	list := routes.NewList(r.Kind)
	if err := r.List(ctx, list, client.InNamespace(obj.GetNamespace())); err == nil {
		requests = append(requests, requestsForRoutes(routes.Items(list))...)
	}
	return requests
}

// routeOfObject maps an object rendered for a route of the reconciled kind back to the
// route; an object without a route-kind label is an HTTPRoute's.
func (r *RouteReconciler) routeOfObject(_ context.Context, obj client.Object) []reconcile.Request {
	labels := obj.GetLabels()
	name, namespace := labels[gatewrightv1alpha1.LabelHTTPRouteName], labels[gatewrightv1alpha1.LabelHTTPRouteNamespace]
	if name == "" || namespace == "" || routeKindOfLabels(labels) != r.Kind {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}}}
}

// routesOfService lists the routes, in any namespace, with a backendRef naming the
// Service: they resolve differently once it comes or goes.
func (r *RouteReconciler) routesOfService(ctx context.Context, svc *metav1.PartialObjectMetadata) []reconcile.Request {
	list := routes.NewList(r.Kind)
	if err := r.List(ctx, list, client.MatchingFields{indexRouteService: svc.Namespace + "/" + svc.Name}); err != nil {
		return nil
	}
	return requestsForRoutes(routes.Items(list))
}

// routesOfGrant lists the routes with a backendRef that the ReferenceGrant permits or
// stops permitting.
func (r *RouteReconciler) routesOfGrant(ctx context.Context, obj client.Object) []reconcile.Request {
	return referrersOfGrant(ctx, r.Client, obj, r.Kind, routes.NewList(r.Kind), indexRouteBackendNamespace, func(o client.Object) []attach.Referent {
		return attach.BackendReferents(o.(routes.Route))
	})
}

// gatewayHeadChanged passes the Rendering updates that change what the routes on its
// Gateway read of it: the revision assigned, which routes the Gateway left out, or
// whether its latest render was applied; and a new Rendering (the routes read none
// before, and waited for a configuration).
var gatewayHeadChanged = builder.WithPredicates(predicate.Funcs{
	CreateFunc:  func(e event.CreateEvent) bool { return e.Object.(*gatewrightv1alpha1.Rendering).Part == 0 },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, new := e.ObjectOld.(*gatewrightv1alpha1.Rendering), e.ObjectNew.(*gatewrightv1alpha1.Rendering)
		return old.TargetRevision != new.TargetRevision || old.TargetBlueprint != new.TargetBlueprint || !equality.Semantic.DeepEqual(old.RouteCutoff, new.RouteCutoff) ||
			old.NotApplied != new.NotApplied
	},
})

// routesOfGatewayRendering maps a Gateway's Rendering to the routes that name the
// Gateway: they render with the revision it runs.
func (r *RouteReconciler) routesOfGatewayRendering(ctx context.Context, obj client.Object) []reconcile.Request {
	labels := obj.GetLabels()
	if labels[gatewrightv1alpha1.LabelHTTPRouteName] != "" {
		return nil
	}
	gw := &gatewayv1.Gateway{}
	gw.Namespace, gw.Name = labels[gatewrightv1alpha1.LabelGatewayNamespace], labels[gatewayv1.GatewayNameLabelKey]
	if gw.Name == "" {
		return nil
	}
	return r.routesOfGateway(ctx, gw)
}

// routeKindOfLabels is the kind of the route an object or Rendering with labels was
// rendered for: its route-kind label, absent on an HTTPRoute's.
func routeKindOfLabels(labels map[string]string) string {
	if kind := labels[gatewrightv1alpha1.LabelRouteKind]; kind != "" {
		return kind
	}
	return routes.KindHTTPRoute
}
