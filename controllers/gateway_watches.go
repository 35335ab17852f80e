package controllers

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/routes"
)

func (r *GatewayReconciler) gatewaysOfClass(ctx context.Context, obj client.Object) []reconcile.Request {
	return ctrlutil.RequestsFor(r.gatewayNames(ctx, client.MatchingFields{indexGatewayClassName: obj.GetName()}))
}

func (r *GatewayReconciler) gatewaysOfBlueprint(ctx context.Context, obj client.Object) []reconcile.Request {
	classes, _ := classesUsing(ctx, r.Client, obj.GetName()) // a map function has nowhere to report it
	var requests []reconcile.Request
	for _, class := range classes {
		requests = append(requests, ctrlutil.RequestsFor(r.gatewayNames(ctx, client.MatchingFields{indexGatewayClassName: class.Name}))...)
	}
	return requests
}

// gatewaysOnCurrentRevision maps a blueprint whose currentRevision moved to the Gateways
// of its classes that run it (snapshot.RunningNumber): those a rollout assigned no
// newer revision. A Gateway assigned a newer one runs that, and a reconcile each would
// render a fleet again for nothing. An update is mapped with the blueprint before and
// after it, so a currentRevision that moves back (a rollback) reaches the Gateways
// that ran the newer one.
func (r *GatewayReconciler) gatewaysOnCurrentRevision(ctx context.Context, obj client.Object) []reconcile.Request {
	current := obj.(*gatewrightv1alpha1.GatewayClassBlueprint).Status.CurrentRevision
	// Only read: the cache's own objects, not a copy of each.
	var renderings gatewrightv1alpha1.RenderingList
	if err := r.List(ctx, &renderings, client.MatchingFields{indexRenderingBlueprint: obj.GetName()}, client.UnsafeDisableDeepCopy); err != nil {
		return r.gatewaysOfBlueprint(ctx, obj)
	}
	records := gatewayRecords(renderings.Items)
	classes, _ := classesUsing(ctx, r.Client, obj.GetName()) // a map function has nowhere to report it
	var requests []reconcile.Request
	for _, class := range classes {
		for _, key := range r.gatewayNames(ctx, client.MatchingFields{indexGatewayClassName: class.Name}) {
			if rec := records[key]; rec == nil || rec.TargetFor(obj.GetName()) < current {
				requests = append(requests, reconcile.Request{NamespacedName: key})
			}
		}
	}
	return requests
}

// gatewaysOfClassConfig: a config in the controller namespace may reach the Gateways
// of its target classes everywhere; elsewhere only the Gateways of its namespace.
func (r *GatewayReconciler) gatewaysOfClassConfig(ctx context.Context, obj client.Object) []reconcile.Request {
	if obj.GetNamespace() != r.ControllerNamespace {
		return r.gatewaysInNamespaceOf(ctx, obj)
	}
	var requests []reconcile.Request
	for _, ref := range obj.(*gatewrightv1alpha1.GatewayClassConfig).Spec.TargetRefs {
		if ref.Kind == "GatewayClass" {
			requests = append(requests, ctrlutil.RequestsFor(r.gatewayNames(ctx, client.MatchingFields{indexGatewayClassName: string(ref.Name)}))...)
		}
	}
	return append(requests, r.gatewaysInNamespaceOf(ctx, obj)...)
}

// allGateways: a namespace's labels decide which listeners that select namespaces
// accept its routes, on any Gateway.
func (r *GatewayReconciler) allGateways(ctx context.Context, _ client.Object) []reconcile.Request {
	return ctrlutil.RequestsFor(r.gatewayNames(ctx))
}

func (r *GatewayReconciler) gatewaysInNamespaceOf(ctx context.Context, obj client.Object) []reconcile.Request {
	return ctrlutil.RequestsFor(r.gatewayNames(ctx, client.InNamespace(obj.GetNamespace())))
}

// gatewaysOfRoute: the Gateways a route names in its parentRefs, and the parents of the
// ListenerSets it names. A route that drops a parentRef is seen in the update's old
// object.
func (r *GatewayReconciler) gatewaysOfRoute(ctx context.Context, obj client.Object) []reconcile.Request {
	route := obj.(routes.Route)
	requests := ctrlutil.RequestsFor(attach.ParentGateways(route))
	if !r.listenerSets {
		return requests
	}
	for _, ref := range routes.ParentRefs(route) {
		if key, isListenerSet := attach.ParentListenerSet(route.GetNamespace(), ref); isListenerSet {
			ls := &gatewayv1.ListenerSet{}
			if err := r.Get(ctx, key, ls); err == nil {
				requests = append(requests, r.gatewayOfListenerSet(ctx, ls)...)
			}
		}
	}
	return requests
}

// gatewayOfListenerSet: the Gateway a ListenerSet names as its parent, which judges it
// and writes its status. One that moves to another parent is seen in the update's old
// object too, so the Gateway it left stops counting it.
func (r *GatewayReconciler) gatewayOfListenerSet(_ context.Context, obj client.Object) []reconcile.Request {
	if key, isGateway := attach.ListenerSetParent(obj.(*gatewayv1.ListenerSet)); isGateway {
		return []reconcile.Request{{NamespacedName: key}}
	}
	return nil
}

// gatewaysOfListenerSetGrant: the parents of the ListenerSets with a certificateRef that
// the ReferenceGrant permits or stops permitting.
func (r *GatewayReconciler) gatewaysOfListenerSetGrant(ctx context.Context, obj client.Object) []reconcile.Request {
	return r.parentsOfListenerSets(ctx, referrersOfGrant(ctx, r.Client, obj, "ListenerSet", &gatewayv1.ListenerSetList{}, indexListenerSetRefNamespace, func(o client.Object) []attach.Referent {
		return attach.ListenerSetCertificateReferents(o.(*gatewayv1.ListenerSet))
	}))
}

// gatewaysOfListenerSetSecret: the parents of the ListenerSets whose certificateRefs
// name the Secret.
func (r *GatewayReconciler) gatewaysOfListenerSetSecret(ctx context.Context, secret *metav1.PartialObjectMetadata) []reconcile.Request {
	var list gatewayv1.ListenerSetList
	if err := r.List(ctx, &list, client.MatchingFields{indexListenerSetSecret: secret.Namespace + "/" + secret.Name}); err != nil {
		return nil
	}
	var requests []reconcile.Request
	for i := range list.Items {
		requests = append(requests, r.gatewayOfListenerSet(ctx, &list.Items[i])...)
	}
	return requests
}

func (r *GatewayReconciler) parentsOfListenerSets(ctx context.Context, sets []reconcile.Request) []reconcile.Request {
	var requests []reconcile.Request
	for _, req := range sets {
		ls := &gatewayv1.ListenerSet{}
		if err := r.Get(ctx, req.NamespacedName, ls); err == nil {
			requests = append(requests, r.gatewayOfListenerSet(ctx, ls)...)
		}
	}
	return requests
}

func (r *GatewayReconciler) gatewayNames(ctx context.Context, opts ...client.ListOption) []types.NamespacedName {
	var gateways gatewayv1.GatewayList
	// Only their names are read: the cache's own objects, not a copy of each.
	if err := r.List(ctx, &gateways, append(opts, client.UnsafeDisableDeepCopy)...); err != nil {
		return nil
	}
	names := make([]types.NamespacedName, len(gateways.Items))
	for i, gw := range gateways.Items {
		names[i] = types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
	}
	return names
}

// gatewayOfObject maps a rendered object to its Gateway, by the labels the renderer
// stamped. Objects rendered for routes belong to the route reconciler.
func (r *GatewayReconciler) gatewayOfObject(_ context.Context, obj client.Object) []reconcile.Request {
	labels := obj.GetLabels()
	name, namespace := labels[gatewayv1.GatewayNameLabelKey], labels[gatewrightv1alpha1.LabelGatewayNamespace]
	if name == "" || namespace == "" || labels[gatewrightv1alpha1.LabelHTTPRouteName] != "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}}}
}

// gatewaysOfGrant lists the Gateways with a certificateRef that the ReferenceGrant
// permits or stops permitting.
func (r *GatewayReconciler) gatewaysOfGrant(ctx context.Context, obj client.Object) []reconcile.Request {
	return referrersOfGrant(ctx, r.Client, obj, "Gateway", &gatewayv1.GatewayList{}, indexGatewayRefNamespace, func(o client.Object) []attach.Referent {
		return attach.CertificateReferents(o.(*gatewayv1.Gateway))
	})
}

// gatewaysOfSecret lists the Gateways whose certificateRefs name the Secret.
func (r *GatewayReconciler) gatewaysOfSecret(ctx context.Context, secret *metav1.PartialObjectMetadata) []reconcile.Request {
	return ctrlutil.RequestsFor(r.gatewayNames(ctx, client.MatchingFields{indexGatewaySecret: secret.Namespace + "/" + secret.Name}))
}

// gatewaysOfService lists the Gateways of the routes, of every kind, with a backendRef
// naming the Service: their route tables say whether it resolves.
func (r *GatewayReconciler) gatewaysOfService(ctx context.Context, svc *metav1.PartialObjectMetadata) []reconcile.Request {
	var requests []reconcile.Request
	for _, kind := range r.routeKinds {
		list := routes.NewList(kind)
		if err := r.List(ctx, list, client.MatchingFields{indexRouteService: svc.Namespace + "/" + svc.Name}); err != nil {
			continue
		}
		for _, route := range routes.Items(list) {
			requests = append(requests, r.gatewaysOfRoute(ctx, route)...)
		}
	}
	return requests
}

// gatewaysOfRoutesOfGrant lists the Gateways of the routes, of every kind, with a
// backendRef that the ReferenceGrant permits or stops permitting.
func (r *GatewayReconciler) gatewaysOfRoutesOfGrant(ctx context.Context, obj client.Object) []reconcile.Request {
	var requests []reconcile.Request
	for _, kind := range r.routeKinds {
		for _, route := range grantReferrers(ctx, r.Client, obj, kind, routes.NewList(kind), indexRouteBackendNamespace, func(o client.Object) []attach.Referent {
			return attach.BackendReferents(o.(routes.Route))
		}) {
			requests = append(requests, r.gatewaysOfRoute(ctx, route)...)
		}
	}
	return requests
}

// gatewayOfRouteRecord maps a route's Rendering to the route's Gateway, by the names it
// records.
func (r *GatewayReconciler) gatewayOfRouteRecord(_ context.Context, obj client.Object) []reconcile.Request {
	rendering := obj.(*gatewrightv1alpha1.Rendering)
	if rendering.Owner.Kind == apply.KindGateway || rendering.Part != 0 {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: rendering.Owner.GatewayNamespace, Name: rendering.Owner.GatewayName}}}
}

// routeChangedForGateways passes the route events that can change a Gateway's render or
// status: a new generation, labels or annotations (templates may read them), a creation
// or a deletion. The routes' status, which the route reconciler writes for every route,
// changes neither: a shared Gateway of thousands of routes would be rendered again for
// each of those writes.
var routeChangedForGateways = predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{})

// routeRefusalChanged passes the route Renderings whose templates' refusal came or went:
// the Gateway leaves the route out, or takes it back. A Rendering deleted with a
// refusal lets the route back in as much as a cleared one.
var routeRefusalChanged = builder.WithPredicates(predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool {
		return e.Object.(*gatewrightv1alpha1.Rendering).RouteRefused != ""
	},
	DeleteFunc: func(e event.DeleteEvent) bool {
		return e.Object.(*gatewrightv1alpha1.Rendering).RouteRefused != ""
	},
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.(*gatewrightv1alpha1.Rendering).RouteRefused != e.ObjectNew.(*gatewrightv1alpha1.Rendering).RouteRefused
	},
})
