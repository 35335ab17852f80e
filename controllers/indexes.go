package controllers

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
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
	// indexListenerSetParent indexes ListenerSets by the Gateway (namespace/name) their
	// parentRef names.
	indexListenerSetParent = "spec.parentRef.gateway"
	// indexListenerSetSecret and indexListenerSetRefNamespace are indexGatewaySecret and
	// indexGatewayRefNamespace for ListenerSets.
	indexListenerSetSecret       = "spec.listeners.tls.certificateRefs"
	indexListenerSetRefNamespace = "spec.listeners.tls.certificateRefs.namespace"
)

// addIndexes registers every index with mgr.
func addIndexes(ctx context.Context, mgr ctrl.Manager, routeKinds []string, listenerSets bool) error {
	type index struct {
		obj     client.Object
		field   string
		extract client.IndexerFunc
	}
	indexes := []index{
		{&gatewayv1.Gateway{}, indexGatewayClassName, gatewayClassName},
		{&gatewayv1.Gateway{}, indexGatewaySecret, gatewaySecrets},
		{&gatewayv1.Gateway{}, indexGatewayRefNamespace, gatewayRefNamespaces},
		{&gatewrightv1alpha1.Rendering{}, indexRenderingBlueprint, renderingBlueprint},
		{&gatewrightv1alpha1.Rendering{}, indexRenderingRefusedRoute, refusedRouteGateway},
	}
	for _, kind := range routeKinds {
		indexes = append(indexes,
			index{routes.New(kind), indexRouteParent, routeParents},
			index{routes.New(kind), indexRouteBackendNamespace, routeBackendNamespaces},
			index{routes.New(kind), indexRouteService, routeServices})
	}
	if listenerSets {
		indexes = append(indexes,
			index{&gatewayv1.ListenerSet{}, indexListenerSetParent, listenerSetParent},
			index{&gatewayv1.ListenerSet{}, indexListenerSetSecret, listenerSetSecrets},
			index{&gatewayv1.ListenerSet{}, indexListenerSetRefNamespace, listenerSetRefNamespaces})
	}
	for _, index := range indexes {
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
	return otherNamespaces(obj, attach.CertificateReferents(obj.(*gatewayv1.Gateway)))
}

func listenerSetParent(obj client.Object) []string {
	if key, isGateway := attach.ListenerSetParent(obj.(*gatewayv1.ListenerSet)); isGateway {
		return []string{key.String()}
	}
	return nil
}

func listenerSetSecrets(obj client.Object) []string {
	return keyStrings(attach.ListenerSetCertificateSecrets(obj.(*gatewayv1.ListenerSet)))
}

func listenerSetRefNamespaces(obj client.Object) []string {
	return otherNamespaces(obj, attach.ListenerSetCertificateReferents(obj.(*gatewayv1.ListenerSet)))
}

// routeParents are the Gateways a route names, and the ListenerSets it names, each as
// snapshot.ListenerSetRouteKey has it.
func routeParents(obj client.Object) []string {
	route := obj.(routes.Route)
	out := keyStrings(attach.ParentGateways(route))
	for _, ref := range routes.ParentRefs(route) {
		if key, isListenerSet := attach.ParentListenerSet(route.GetNamespace(), ref); isListenerSet && !slices.Contains(out, snapshot.ListenerSetRouteKey(key)) {
			out = append(out, snapshot.ListenerSetRouteKey(key))
		}
	}
	return out
}

// routesOnListenerSets lists the routes of kind that name one of sets in a parentRef,
// once each.
func routesOnListenerSets(ctx context.Context, r client.Reader, kind string, sets []*gatewayv1.ListenerSet) ([]routes.Route, error) {
	seen := map[types.NamespacedName]bool{}
	var out []routes.Route
	for _, ls := range sets {
		list := routes.NewList(kind)
		if err := r.List(ctx, list, client.MatchingFields{indexRouteParent: snapshot.ListenerSetRouteKey(client.ObjectKeyFromObject(ls))}); err != nil {
			return nil, err
		}
		for _, route := range routes.Items(list) {
			if key := client.ObjectKeyFromObject(route); !seen[key] {
				seen[key] = true
				out = append(out, route)
			}
		}
	}
	return out, nil
}

func routeBackendNamespaces(obj client.Object) []string {
	return otherNamespaces(obj, attach.BackendReferents(obj.(routes.Route)))
}

func routeServices(obj client.Object) []string {
	route := obj.(routes.Route)
	var keys []types.NamespacedName
	for _, rule := range routes.BackendRefs(route) {
		for _, ref := range rule {
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

// routesOf lists the routes of kind that name gw in a parentRef. They are the cache's
// own (not copied: a Gateway of thousands of routes lists them at every reconcile),
// which every caller only reads.
func routesOf(ctx context.Context, r client.Reader, kind string, gw client.Object) ([]routes.Route, error) {
	list := routes.NewList(kind)
	err := r.List(ctx, list, client.MatchingFields{indexRouteParent: client.ObjectKeyFromObject(gw).String()}, client.UnsafeDisableDeepCopy)
	return routes.Items(list), err
}

// httpRoutesOf lists the HTTPRoutes that name gw in a parentRef, the cache's own as
// routesOf does.
func httpRoutesOf(ctx context.Context, r client.Reader, gw client.Object) ([]*gatewayv1.HTTPRoute, error) {
	var list gatewayv1.HTTPRouteList
	err := r.List(ctx, &list, client.MatchingFields{indexRouteParent: client.ObjectKeyFromObject(gw).String()}, client.UnsafeDisableDeepCopy)
	return routes.HTTPRoutes(&list), err
}

// listenerSetsOf lists the ListenerSets whose parentRef names gw, with opts.
func listenerSetsOf(ctx context.Context, r client.Reader, gw client.Object, opts ...client.ListOption) ([]gatewayv1.ListenerSet, error) {
	var list gatewayv1.ListenerSetList
	err := r.List(ctx, &list, append(opts, client.MatchingFields{indexListenerSetParent: client.ObjectKeyFromObject(gw).String()})...)
	return list.Items, err
}

// getClass returns the GatewayClass name, or nil when there is none.
func getClass(ctx context.Context, c client.Reader, name string) (*gatewayv1.GatewayClass, error) {
	class := &gatewayv1.GatewayClass{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, class); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return class, nil
}

// classesUsing lists the names of Gatewright's GatewayClasses that use blueprint.
func classesUsing(ctx context.Context, c client.Reader, blueprint string) ([]types.NamespacedName, error) {
	var classes gatewayv1.GatewayClassList
	if err := c.List(ctx, &classes); err != nil {
		return nil, fmt.Errorf("listing the GatewayClasses of GatewayClassBlueprint %s: %w", blueprint, err)
	}
	var out []types.NamespacedName
	for _, class := range classes.Items {
		if translate.UsesBlueprint(&class, blueprint) {
			out = append(out, types.NamespacedName{Name: class.Name})
		}
	}
	return out, nil
}

// referrersOfGrant requests the objects grantReferrers finds.
func referrersOfGrant(ctx context.Context, r client.Reader, obj client.Object, kind string, list client.ObjectList, index string, referents func(client.Object) []attach.Referent) []reconcile.Request {
	var names []types.NamespacedName
	for _, referrer := range grantReferrers(ctx, r, obj, kind, list, index, referents) {
		names = append(names, client.ObjectKeyFromObject(referrer))
	}
	return ctrlutil.RequestsFor(names)
}

// grantReferrers lists the objects of kind (of the Gateway API group, each namespace's
// into a copy of the empty list) with a reference that the ReferenceGrant obj permits or
// stops permitting: of a namespace it lets kind refer from, naming (referents) an object of its namespace that
// it lets them refer to; index is kind's index of the other namespaces its references
// name. A grant naming namespaces where nothing refers through it reaches nothing. On an
// update both the old and the new grant are mapped, so references it drops are seen too.
func grantReferrers(ctx context.Context, r client.Reader, obj client.Object, kind string, list client.ObjectList, index string, referents func(client.Object) []attach.Referent) []client.Object {
	grant, ok := obj.(*gatewayv1.ReferenceGrant)
	if !ok {
		return nil
	}
	grants := []gatewayv1.ReferenceGrant{*grant}
	var out []client.Object
	for _, namespace := range attach.ReferrerNamespaces(grant, gatewayv1.GroupName, kind) {
		// A list of its own per namespace: the items taken from the last stay as they are.
		in := list.DeepCopyObject().(client.ObjectList)
		if err := r.List(ctx, in, client.InNamespace(namespace), client.MatchingFields{index: grant.Namespace}); err != nil {
			return nil
		}
		from := attach.Referrer{Group: gatewayv1.GroupName, Kind: kind, Namespace: namespace}
		permitted := func(to attach.Referent) bool {
			return to.Namespace == grant.Namespace && attach.ReferencePermitted(grants, from, to)
		}
		_ = meta.EachListItem(in, func(item runtime.Object) error { // the func never fails
			if referrer := item.(client.Object); slices.ContainsFunc(referents(referrer), permitted) {
				out = append(out, referrer)
			}
			return nil
		})
	}
	return out
}

// routesOnGateways lists, once each, the routes of kinds that name any of gateways in a
// parentRef.
func routesOnGateways(ctx context.Context, r client.Reader, kinds []string, gateways []gatewayv1.Gateway) ([]routes.Route, error) {
	seen := map[routes.Key]bool{}
	var out []routes.Route
	for _, kind := range kinds {
		for i := range gateways {
			named, err := routesOf(ctx, r, kind, &gateways[i])
			if err != nil {
				return nil, err
			}
			for _, route := range named {
				if key := routes.KeyOf(route); !seen[key] {
					seen[key] = true
					out = append(out, route)
				}
			}
		}
	}
	return out, nil
}
