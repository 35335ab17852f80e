package controllers

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
)

// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=referencegrants,verbs=get;list;watch

// resolveBackendRefs applies attach's rules to the route's backendRefs, with the
// ReferenceGrants of the other namespaces they name and the Service metadata cache.
func (r *HTTPRouteReconciler) resolveBackendRefs(ctx context.Context, route *gatewayv1.HTTPRoute) (attach.Resolution, error) {
	var grants []gatewayv1.ReferenceGrant
	listed := map[string]bool{route.Namespace: true} // no grant needed there
	for _, rule := range route.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			key, _ := attach.BackendService(route, ref.BackendObjectReference)
			if listed[key.Namespace] {
				continue
			}
			listed[key.Namespace] = true
			var list gatewayv1.ReferenceGrantList
			if err := r.List(ctx, &list, client.InNamespace(key.Namespace)); err != nil {
				return attach.Resolution{}, err
			}
			grants = append(grants, list.Items...)
		}
	}
	return attach.ResolveBackendRefs(route, grants, serviceExists(ctx, r.services))
}

// routesOfService lists the routes, in any namespace, with a backendRef naming the
// Service: they resolve differently once it comes or goes.
func (r *HTTPRouteReconciler) routesOfService(ctx context.Context, svc *metav1.PartialObjectMetadata) []reconcile.Request {
	var routes gatewayv1.HTTPRouteList
	if err := r.List(ctx, &routes); err != nil {
		return nil
	}
	want := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
	var names []types.NamespacedName
	for _, route := range routes.Items {
		if namesService(&route, want) {
			names = append(names, types.NamespacedName{Namespace: route.Namespace, Name: route.Name})
		}
	}
	return requestsFor(names)
}

func namesService(route *gatewayv1.HTTPRoute, want types.NamespacedName) bool {
	for _, rule := range route.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			if key, isService := attach.BackendService(route, ref.BackendObjectReference); isService && key == want {
				return true
			}
		}
	}
	return false
}

// routesOfGrant lists the routes of the namespaces a ReferenceGrant lets HTTPRoutes refer
// from. On an update both the old and the new grant are mapped, so namespaces it drops
// are seen too.
func (r *HTTPRouteReconciler) routesOfGrant(ctx context.Context, obj client.Object) []reconcile.Request {
	grant, ok := obj.(*gatewayv1.ReferenceGrant)
	if !ok {
		return nil
	}
	var names []types.NamespacedName
	for _, from := range grant.Spec.From {
		if from.Group != gatewayv1.GroupName || from.Kind != "HTTPRoute" {
			continue
		}
		var routes gatewayv1.HTTPRouteList
		if err := r.List(ctx, &routes, client.InNamespace(string(from.Namespace))); err != nil {
			return nil
		}
		for _, route := range routes.Items {
			names = append(names, types.NamespacedName{Namespace: route.Namespace, Name: route.Name})
		}
	}
	return requestsFor(names)
}

// serviceCameOrWent passes the creation and deletion of a Service: a backendRef resolves
// by the Service's existence alone, and its metadata changing says nothing new.
var serviceCameOrWent = predicate.TypedFuncs[*metav1.PartialObjectMetadata]{
	UpdateFunc: func(event.TypedUpdateEvent[*metav1.PartialObjectMetadata]) bool { return false },
}
