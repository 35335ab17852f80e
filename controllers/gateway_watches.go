package controllers

import (
	"context"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/attach"
)

// specChanged passes the events that can change what is rendered: a new generation
// (a spec edit, or the start of a deletion), a creation or a deletion. Status, which
// Gatewright writes itself on Gateways, routes, classes, blueprints and policies as
// Gateways come and go, changes nothing any of them renders.
var specChanged = builder.WithPredicates(predicate.GenerationChangedPredicate{})

func mapTo(fn handler.MapFunc) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(fn)
}

func (r *GatewayReconciler) gatewaysOfClass(ctx context.Context, obj client.Object) []reconcile.Request {
	return requestsFor(r.gatewayNames(ctx, client.MatchingFields{indexGatewayClassName: obj.GetName()}))
}

func (r *GatewayReconciler) gatewaysOfBlueprint(ctx context.Context, obj client.Object) []reconcile.Request {
	var requests []reconcile.Request
	for _, class := range classesUsing(ctx, r.Client, obj.GetName()) {
		requests = append(requests, requestsFor(r.gatewayNames(ctx, client.MatchingFields{indexGatewayClassName: class.Name}))...)
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
			requests = append(requests, requestsFor(r.gatewayNames(ctx, client.MatchingFields{indexGatewayClassName: string(ref.Name)}))...)
		}
	}
	return append(requests, r.gatewaysInNamespaceOf(ctx, obj)...)
}

// allGateways: a namespace's labels decide which listeners that select namespaces
// accept its routes, on any Gateway.
func (r *GatewayReconciler) allGateways(ctx context.Context, _ client.Object) []reconcile.Request {
	return requestsFor(r.gatewayNames(ctx))
}

func (r *GatewayReconciler) gatewaysInNamespaceOf(ctx context.Context, obj client.Object) []reconcile.Request {
	return requestsFor(r.gatewayNames(ctx, client.InNamespace(obj.GetNamespace())))
}

// gatewaysOfRoute: the Gateways a route names in its parentRefs. A route that drops a
// parentRef is seen in the update's old object.
func (r *GatewayReconciler) gatewaysOfRoute(_ context.Context, obj client.Object) []reconcile.Request {
	route := obj.(*gatewayv1.HTTPRoute)
	var names []types.NamespacedName
	for _, ref := range route.Spec.ParentRefs {
		if key, isGateway := attach.ParentGateway(route, ref); isGateway {
			names = append(names, key)
		}
	}
	return requestsFor(names)
}

func (r *GatewayReconciler) gatewayNames(ctx context.Context, opts ...client.ListOption) []types.NamespacedName {
	var gateways gatewayv1.GatewayList
	if err := r.List(ctx, &gateways, opts...); err != nil {
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

// objectWatches starts a watch for each kind of object Gatewright renders, the first
// time it renders one (or is refused one), so that drift and readiness changes trigger a
// reconcile, and a deletion brings back the owners that wait for the name (contested).
type objectWatches struct {
	controller controller.Controller
	cache      cache.Cache
	mapper     handler.MapFunc
	applier    *apply.Applier
	contested  *contestedNames
	mu         sync.Mutex
	watched    map[schema.GroupVersionKind]bool
}

func newObjectWatches(c controller.Controller, cache cache.Cache, mapper handler.MapFunc, applier *apply.Applier, contested *contestedNames) *objectWatches {
	return &objectWatches{controller: c, cache: cache, mapper: mapper, applier: applier, contested: contested, watched: map[schema.GroupVersionKind]bool{}}
}

func (w *objectWatches) ensure(_ context.Context, objs []*unstructured.Unstructured) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		if w.watched[gvk] {
			continue
		}
		if err := w.controller.Watch(source.Kind[client.Object](w.cache, apply.CachedObject(gvk), w.othersChanges(gvk.GroupKind()))); err != nil {
			return err
		}
		w.watched[gvk] = true
	}
	return nil
}

// othersChanges enqueues the owners of rendered objects of kind gk on the events that
// say something their last round did not know: not resyncs (updates that carry no new
// resourceVersion), and not the events Gatewright's own applies cause
// (Applier.OwnWrite), which it holds back until it knows whose they are.
func (w *objectWatches) othersChanges(gk schema.GroupKind) handler.EventHandler {
	type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
	add := func(requests []reconcile.Request, q queue) {
		for _, req := range requests {
			q.Add(req)
		}
	}
	// The Gateway and the HTTPRoute reconcilers both watch each kind they render; only
	// the one whose object it is asks, since asking answers once.
	unlessOwn := func(requests []reconcile.Request, obj client.Object, q queue) {
		if len(requests) > 0 && !w.applier.OwnWrite(gk, obj, func() { add(requests, q) }) {
			add(requests, q)
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q queue) {
			unlessOwn(w.mapper(ctx, e.Object), e.Object, q)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q queue) {
			if e.ObjectOld.GetResourceVersion() == e.ObjectNew.GetResourceVersion() {
				return
			}
			requests := w.mapper(ctx, e.ObjectNew)
			// An owner the labels no longer name learns that the object left it.
			for _, req := range w.mapper(ctx, e.ObjectOld) {
				if !slices.Contains(requests, req) {
					q.Add(req)
				}
			}
			unlessOwn(requests, e.ObjectNew, q)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q queue) {
			add(w.mapper(ctx, e.Object), q)
			add(w.contested.release(objectName{group: gk.Group, kind: gk.Kind, namespace: e.Object.GetNamespace(), name: e.Object.GetName()}), q)
		},
	}
}

// indexGatewayRefNamespace indexes Gateways by the other namespaces their listeners'
// certificateRefs name: the namespaces whose ReferenceGrants may change their verdicts.
const indexGatewayRefNamespace = "spec.listeners.tls.certificateRefs.namespace"

func gatewayRefNamespaces(obj client.Object) []string {
	var namespaces []string
	for _, to := range certificateReferents(obj.(*gatewayv1.Gateway)) {
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
			to := attach.Referent{Kind: "Secret", Namespace: gw.Namespace, Name: string(ref.Name)}
			if ref.Group != nil {
				to.Group = string(*ref.Group)
			}
			if ref.Kind != nil {
				to.Kind = string(*ref.Kind)
			}
			if ref.Namespace != nil {
				to.Namespace = string(*ref.Namespace)
			}
			out = append(out, to)
		}
	}
	return out
}

// gatewaysOfGrant lists the Gateways with a certificateRef that the ReferenceGrant
// permits or stops permitting: of a namespace it lets Gateways refer from, naming an
// object of its namespace that it lets them refer to. A grant naming namespaces where no
// Gateway refers through it reaches none. On an update both the old and the new grant
// are mapped, so references it drops are seen too.
func (r *GatewayReconciler) gatewaysOfGrant(ctx context.Context, obj client.Object) []reconcile.Request {
	grant, ok := obj.(*gatewayv1.ReferenceGrant)
	if !ok {
		return nil
	}
	grants := []gatewayv1.ReferenceGrant{*grant}
	var names []types.NamespacedName
	for _, namespace := range attach.ReferrerNamespaces(grant, gatewayv1.GroupName, "Gateway") {
		var gateways gatewayv1.GatewayList
		if err := r.List(ctx, &gateways, client.InNamespace(namespace), client.MatchingFields{indexGatewayRefNamespace: grant.Namespace}); err != nil {
			return nil
		}
		from := attach.Referrer{Group: gatewayv1.GroupName, Kind: "Gateway", Namespace: namespace}
		for i := range gateways.Items {
			if slices.ContainsFunc(certificateReferents(&gateways.Items[i]), func(to attach.Referent) bool {
				return to.Namespace == grant.Namespace && attach.ReferencePermitted(grants, from, to)
			}) {
				names = append(names, client.ObjectKeyFromObject(&gateways.Items[i]))
			}
		}
	}
	return requestsFor(names)
}
