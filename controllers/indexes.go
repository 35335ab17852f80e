package controllers

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
)

// The field indexes the reconcilers list Gateways and routes by, so that an event finds
// what it concerns without copying every Gateway or route of the cluster.
const (
	// indexGatewayClassName indexes Gateways by spec.gatewayClassName.
	indexGatewayClassName = "spec.gatewayClassName"
	// indexGatewaySecret indexes Gateways by the Secrets (namespace/name) their
	// listeners' certificateRefs name.
	indexGatewaySecret = "spec.listeners.tls.certificateRefs"
	// indexGatewayRefNamespace indexes Gateways by the other namespaces their listeners'
	// certificateRefs name: the namespaces whose ReferenceGrants may change their verdicts.
	indexGatewayRefNamespace = "spec.listeners.tls.certificateRefs.namespace"
	// indexRouteParent indexes HTTPRoutes by the Gateways (namespace/name) their
	// parentRefs name.
	indexRouteParent = "spec.parentRefs.gateway"
	// indexRouteBackendNamespace indexes HTTPRoutes by the other namespaces their
	// backendRefs name: the namespaces whose ReferenceGrants may change how they resolve.
	indexRouteBackendNamespace = "spec.rules.backendRefs.namespace"
	// indexRouteService indexes HTTPRoutes by the Services (namespace/name) their
	// backendRefs name, in any namespace.
	indexRouteService = "spec.rules.backendRefs.service"
	// indexRenderingBlueprint indexes the first part of each Rendering by the blueprint
	// its objects were rendered from, which counts the Gateways per revision.
	indexRenderingBlueprint = "values.blueprint"
	// indexRenderingRefusedRoute indexes the first part of each route's Rendering that
	// says its templates refused it by its Gateway (namespace/name), which leaves the
	// route out.
	indexRenderingRefusedRoute = "routeRefused.gateway"
)

// addIndexes registers every index with mgr.
func addIndexes(ctx context.Context, mgr ctrl.Manager) error {
	for _, index := range []struct {
		obj     client.Object
		field   string
		extract client.IndexerFunc
	}{
		{&gatewayv1.Gateway{}, indexGatewayClassName, gatewayClassName},
		{&gatewayv1.Gateway{}, indexGatewaySecret, gatewaySecrets},
		{&gatewayv1.Gateway{}, indexGatewayRefNamespace, gatewayRefNamespaces},
		{&gatewayv1.HTTPRoute{}, indexRouteParent, routeParents},
		{&gatewayv1.HTTPRoute{}, indexRouteBackendNamespace, routeBackendNamespaces},
		{&gatewayv1.HTTPRoute{}, indexRouteService, routeServices},
		{&gatewrightv1alpha1.Rendering{}, indexRenderingBlueprint, renderingBlueprint},
		{&gatewrightv1alpha1.Rendering{}, indexRenderingRefusedRoute, refusedRouteGateway},
	} {
		if err := mgr.GetFieldIndexer().IndexField(ctx, index.obj, index.field, index.extract); err != nil {
			return err
		}
	}
	return nil
}

func renderingBlueprint(obj client.Object) []string {
	rendering := obj.(*gatewrightv1alpha1.Rendering)
	if rendering.Part != 0 || rendering.Values == nil {
		return nil
	}
	return []string{rendering.Values.Blueprint}
}

func refusedRouteGateway(obj client.Object) []string {
	rendering := obj.(*gatewrightv1alpha1.Rendering)
	if rendering.Part != 0 || rendering.RouteRefused == "" {
		return nil
	}
	return []string{rendering.Owner.GatewayNamespace + "/" + rendering.Owner.GatewayName}
}

func gatewayClassName(obj client.Object) []string {
	return []string{string(obj.(*gatewayv1.Gateway).Spec.GatewayClassName)}
}

func gatewaySecrets(obj client.Object) []string {
	return keyStrings(attach.CertificateSecrets(obj.(*gatewayv1.Gateway)))
}

func gatewayRefNamespaces(obj client.Object) []string {
	return otherNamespaces(obj, certificateReferents(obj.(*gatewayv1.Gateway)))
}

func routeParents(obj client.Object) []string {
	route := obj.(*gatewayv1.HTTPRoute)
	var keys []types.NamespacedName
	for _, ref := range route.Spec.ParentRefs {
		if key, isGateway := attach.ParentGateway(route, ref); isGateway {
			keys = append(keys, key)
		}
	}
	return keyStrings(keys)
}

func routeBackendNamespaces(obj client.Object) []string {
	return otherNamespaces(obj, backendReferents(obj.(*gatewayv1.HTTPRoute)))
}

func routeServices(obj client.Object) []string {
	route := obj.(*gatewayv1.HTTPRoute)
	var keys []types.NamespacedName
	for _, rule := range route.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			if key, isService := attach.BackendService(route, ref.BackendObjectReference); isService {
				keys = append(keys, key)
			}
		}
	}
	return keyStrings(keys)
}

// keyStrings are keys as "namespace/name", once each, in order.
func keyStrings(keys []types.NamespacedName) []string {
	var out []string
	for _, key := range keys {
		if !slices.Contains(out, key.String()) {
			out = append(out, key.String())
		}
	}
	return out
}

// otherNamespaces are the namespaces of referents other than obj's own, once each.
func otherNamespaces(obj client.Object, referents []attach.Referent) []string {
	var namespaces []string
	for _, to := range referents {
		if to.Namespace != obj.GetNamespace() && !slices.Contains(namespaces, to.Namespace) {
			namespaces = append(namespaces, to.Namespace)
		}
	}
	return namespaces
}

// certificateReferents are the objects the certificateRefs of gw's listeners name.
func certificateReferents(gw *gatewayv1.Gateway) []attach.Referent {
	var out []attach.Referent
	for i := range gw.Spec.Listeners {
		if gw.Spec.Listeners[i].TLS == nil {
			continue
		}
		for _, ref := range gw.Spec.Listeners[i].TLS.CertificateRefs {
			namespace := gw.Namespace
			if ref.Namespace != nil {
				namespace = string(*ref.Namespace)
			}
			out = append(out, referent(ref.Group, ref.Kind, "Secret", namespace, string(ref.Name)))
		}
	}
	return out
}

// backendReferents are the objects the backendRefs of route name.
func backendReferents(route *gatewayv1.HTTPRoute) []attach.Referent {
	var out []attach.Referent
	for _, rule := range route.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			key, _ := attach.BackendService(route, ref.BackendObjectReference)
			out = append(out, referent(ref.Group, ref.Kind, "Service", key.Namespace, key.Name))
		}
	}
	return out
}

// referent is the object a reference names, of kind orKind when it names none.
func referent(group *gatewayv1.Group, kind *gatewayv1.Kind, orKind, namespace, name string) attach.Referent {
	to := attach.Referent{Kind: orKind, Namespace: namespace, Name: name}
	if group != nil {
		to.Group = string(*group)
	}
	if kind != nil {
		to.Kind = string(*kind)
	}
	return to
}

// routesOf lists the routes that name gw in a parentRef.
func routesOf(ctx context.Context, r client.Reader, gw client.Object) ([]gatewayv1.HTTPRoute, error) {
	var routes gatewayv1.HTTPRouteList
	err := r.List(ctx, &routes, client.MatchingFields{indexRouteParent: client.ObjectKeyFromObject(gw).String()})
	return routes.Items, err
}
