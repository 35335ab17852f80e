package controllers

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
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

// serviceCameOrWent passes the creation and deletion of a Service: a backendRef resolves
// by the Service's existence alone, and its metadata changing says nothing new.
var serviceCameOrWent = predicate.TypedFuncs[*metav1.PartialObjectMetadata]{
	UpdateFunc: func(event.TypedUpdateEvent[*metav1.PartialObjectMetadata]) bool { return false },
}
