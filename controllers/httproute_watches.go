package controllers

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/ctrlutil"
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

func (r *HTTPRouteReconciler) routesOfGateway(ctx context.Context, obj client.Object) []reconcile.Request {
	routes, err := routesOf(ctx, r.Client, obj)
	if err != nil {
		return nil
	}
	names := make([]types.NamespacedName, len(routes))
	for i := range routes {
		names[i] = client.ObjectKeyFromObject(&routes[i])
	}
	return ctrlutil.RequestsFor(names)
}

// routesOnGateways lists the routes that name one of the Gateways opts select, through
// the parentRef index: a route of no such Gateway is not even looked at.
func (r *HTTPRouteReconciler) routesOnGateways(ctx context.Context, opts ...client.ListOption) []reconcile.Request {
	var gateways gatewayv1.GatewayList
	if err := r.List(ctx, &gateways, opts...); err != nil {
		return nil
	}
	var requests []reconcile.Request
	for i := range gateways.Items {
		requests = append(requests, r.routesOfGateway(ctx, &gateways.Items[i])...)
	}
	return requests
}

// routesOfClasses lists the routes on Gateways of the named classes.
func (r *HTTPRouteReconciler) routesOfClasses(ctx context.Context, classes map[string]bool) []reconcile.Request {
	var requests []reconcile.Request
	for class := range classes {
		requests = append(requests, r.routesOnGateways(ctx, client.MatchingFields{indexGatewayClassName: class})...)
	}
	return requests
}

func (r *HTTPRouteReconciler) routesOfClass(ctx context.Context, obj client.Object) []reconcile.Request {
	return r.routesOfClasses(ctx, map[string]bool{obj.GetName(): true})
}

func (r *HTTPRouteReconciler) routesOfBlueprint(ctx context.Context, obj client.Object) []reconcile.Request {
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
func (r *HTTPRouteReconciler) routesNearPolicy(ctx context.Context, obj client.Object) []reconcile.Request {
	if obj.GetNamespace() == r.ControllerNamespace {
		return r.routesOnGateways(ctx)
	}
	requests := r.routesOnGateways(ctx, client.InNamespace(obj.GetNamespace()))
	var routes gatewayv1.HTTPRouteList
	if err := r.List(ctx, &routes, client.InNamespace(obj.GetNamespace())); err == nil {
		for _, route := range routes.Items {
			requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: route.Namespace, Name: route.Name}})
		}
	}
	return requests
}

// routeOfObject maps an object rendered for a route back to the route.
func (r *HTTPRouteReconciler) routeOfObject(_ context.Context, obj client.Object) []reconcile.Request {
	labels := obj.GetLabels()
	name, namespace := labels[gatewrightv1alpha1.LabelHTTPRouteName], labels[gatewrightv1alpha1.LabelHTTPRouteNamespace]
	if name == "" || namespace == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}}}
}

// routesOfService lists the routes, in any namespace, with a backendRef naming the
// Service: they resolve differently once it comes or goes.
func (r *HTTPRouteReconciler) routesOfService(ctx context.Context, svc *metav1.PartialObjectMetadata) []reconcile.Request {
	var routes gatewayv1.HTTPRouteList
	if err := r.List(ctx, &routes, client.MatchingFields{indexRouteService: svc.Namespace + "/" + svc.Name}); err != nil {
		return nil
	}
	names := make([]types.NamespacedName, len(routes.Items))
	for i := range routes.Items {
		names[i] = client.ObjectKeyFromObject(&routes.Items[i])
	}
	return ctrlutil.RequestsFor(names)
}

// routesOfGrant lists the routes with a backendRef that the ReferenceGrant permits or
// stops permitting.
func (r *HTTPRouteReconciler) routesOfGrant(ctx context.Context, obj client.Object) []reconcile.Request {
	return referrersOfGrant(ctx, r.Client, obj, "HTTPRoute", &gatewayv1.HTTPRouteList{}, indexRouteBackendNamespace, func(o client.Object) []attach.Referent {
		return backendReferents(o.(*gatewayv1.HTTPRoute))
	})
}
