package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// In the routes shape (routes.go) the floor also does what a Gateway's routes ask of
// every implementation, and nothing more. It writes each route's parent status once per
// generation: Accepted, and ResolvedRefs by whether its backend Services exist (read
// from a cache of their metadata, as Gatewright reads them). And it keeps each Gateway's
// routes ConfigMap holding every route attached to it, with the listeners'
// attachedRoutes in the Gateway's status: route events enqueue their Gateway at most
// once per floorRenderEvery, the first at once, so that a burst of them costs a render
// or two a second, not one each. A render applies only the children that changed since
// it last applied them, and writes the status only if it changed.
const (
	// routesFlag makes the floor do the routes shape's work.
	routesFlag = "--routes"
	// floorRenderEvery is the least time between two renders of one Gateway that route
	// events start.
	floorRenderEvery = 500 * time.Millisecond
	// floorRoutesControllerName names the floor's controller of route statuses.
	floorRoutesControllerName = "floor-routes"
)

// serviceMetadataKind is what the floor reads of a backend Service: its metadata.
var serviceMetadataKind = schema.GroupVersionKind{Version: "v1", Kind: "Service"}

// floorRoutes is what the floor remembers in the routes shape.
type floorRoutes struct {
	pace renderPace

	mu sync.Mutex
	// applied is the hash of each child as it was last applied, by Gateway and name.
	applied map[string][sha256.Size]byte
}

func newFloorRoutes() *floorRoutes {
	return &floorRoutes{pace: renderPace{every: floorRenderEvery, at: map[types.NamespacedName]time.Time{}}, applied: map[string][sha256.Size]byte{}}
}

// unchanged says whether obj of gw is what was last applied; changed says it now is.
func (r *floorRoutes) unchanged(gw *gatewayv1.Gateway, obj *unstructured.Unstructured) (bool, func()) {
	key := gw.Namespace + "/" + gw.Name + "/" + obj.GetKind() + "/" + obj.GetName()
	data, _ := json.Marshal(obj.Object) // built from strings and maps, it always encodes
	sum := sha256.Sum256(data)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.applied[key] == sum, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.applied[key] = sum
	}
}

// renderPace spaces the renders that route events start: at most one per every for
// each Gateway.
type renderPace struct {
	every time.Duration

	mu sync.Mutex
	// at is when the latest render of each Gateway was let start.
	at map[types.NamespacedName]time.Time
}

// delay says how long after now the render of key that an event asks for starts: at
// once if none started within the interval, else at the end of the interval of the
// latest one. Every event enqueues its Gateway, even when a render is set to start
// then: the queue merges the two, and a render already waiting to start at once may
// have begun before the event reached the cache.
func (p *renderPace) delay(key types.NamespacedName, now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	at := p.at[key]
	switch {
	case now.Sub(at) >= p.every:
		p.at[key] = now
		return 0
	case !at.After(now):
		p.at[key] = at.Add(p.every)
	}
	return p.at[key].Sub(now)
}

// enqueue adds the Gateways route names to q, paced.
func (p *renderPace) enqueue(route *gatewayv1.HTTPRoute, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	now := time.Now()
	for _, key := range parentGateways(route) {
		q.AddAfter(reconcile.Request{NamespacedName: key}, p.delay(key, now))
	}
}

// handler enqueues a route's Gateways when it comes, goes or its spec changes: its
// status, which the floor writes, changes nothing the Gateway renders.
func (p *renderPace) handler() handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			p.enqueue(e.Object.(*gatewayv1.HTTPRoute), q)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
				p.enqueue(e.ObjectOld.(*gatewayv1.HTTPRoute), q)
				p.enqueue(e.ObjectNew.(*gatewayv1.HTTPRoute), q)
			}
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if route, ok := e.Object.(*gatewayv1.HTTPRoute); ok {
				p.enqueue(route, q)
			}
		},
	}
}

// parentGateways are the Gateways route names in its parentRefs.
func parentGateways(route *gatewayv1.HTTPRoute) []types.NamespacedName {
	var keys []types.NamespacedName
	for _, ref := range route.Spec.ParentRefs {
		if key, ok := parentGateway(route, ref); ok {
			keys = append(keys, key)
		}
	}
	return keys
}

// parentGateway is the Gateway ref names, if it names one.
func parentGateway(route *gatewayv1.HTTPRoute, ref gatewayv1.ParentReference) (types.NamespacedName, bool) {
	if (ref.Group != nil && *ref.Group != gatewayv1.GroupName) || (ref.Kind != nil && *ref.Kind != "Gateway") {
		return types.NamespacedName{}, false
	}
	key := types.NamespacedName{Namespace: route.Namespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		key.Namespace = string(*ref.Namespace)
	}
	return key, true
}

// watchFloorRoutes makes the floor write the status of each route on the Gateways of
// the bench class.
func watchFloorRoutes(mgr ctrl.Manager, f *floor) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(floorRoutesControllerName).
		For(&gatewayv1.HTTPRoute{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: floorWorkers}).
		Complete(reconcileFunc(f.reconcileRoute))
}

// reconcileRoute writes the route's status on each Gateway of the bench class it names.
func (f *floor) reconcileRoute(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	route := &gatewayv1.HTTPRoute{}
	if err := f.Get(ctx, req.NamespacedName, route); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	resolved, err := f.backendsExist(ctx, route)
	if err != nil {
		return ctrl.Result{}, err
	}
	original := route.DeepCopy()
	var parents []gatewayv1.RouteParentStatus
	for _, ref := range route.Spec.ParentRefs {
		key, ok := parentGateway(route, ref)
		gw := &gatewayv1.Gateway{}
		if !ok {
			continue
		}
		if err := f.Get(ctx, key, gw); err != nil {
			if client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, err
			}
			continue
		}
		if gw.Spec.GatewayClassName == benchClass {
			parents = append(parents, floorRouteStatus(route, ref, resolved))
		}
	}
	route.Status.Parents = parents
	return ctrl.Result{}, f.Status().Patch(ctx, route, client.MergeFrom(original))
}

// floorRouteStatus is route's status on the parent ref names: Accepted, and ResolvedRefs
// as its backends resolve, at its generation.
func floorRouteStatus(route *gatewayv1.HTTPRoute, ref gatewayv1.ParentReference, resolved bool) gatewayv1.RouteParentStatus {
	status := gatewayv1.RouteParentStatus{ParentRef: ref, ControllerName: gatewrightv1alpha1.ControllerName}
	for _, p := range route.Status.Parents {
		if p.ControllerName == status.ControllerName && equality.Semantic.DeepEqual(p.ParentRef, ref) {
			status.Conditions = p.Conditions
		}
	}
	setTrue(&status.Conditions, route.Generation, string(gatewayv1.RouteConditionAccepted), string(gatewayv1.RouteReasonAccepted))
	if resolved {
		setTrue(&status.Conditions, route.Generation, string(gatewayv1.RouteConditionResolvedRefs), string(gatewayv1.RouteReasonResolvedRefs))
	} else {
		setFalse(&status.Conditions, route.Generation, string(gatewayv1.RouteConditionResolvedRefs), string(gatewayv1.RouteReasonBackendNotFound))
	}
	return status
}

func setFalse(conditions *[]metav1.Condition, generation int64, conditionType, reason string) {
	setCondition(conditions, generation, conditionType, metav1.ConditionFalse, reason)
}

// backendsExist says whether every backend Service of route's namespace that it refers
// to exists, by the cache of Services' metadata. The bench's routes refer to no other
// namespace, so the floor reads no ReferenceGrant.
func (f *floor) backendsExist(ctx context.Context, route *gatewayv1.HTTPRoute) (bool, error) {
	for _, rule := range route.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			service := &metav1.PartialObjectMetadata{}
			service.SetGroupVersionKind(serviceMetadataKind)
			err := f.Get(ctx, types.NamespacedName{Namespace: route.Namespace, Name: string(ref.Name)}, service)
			if client.IgnoreNotFound(err) != nil {
				return false, err
			}
			if err != nil {
				return false, nil
			}
		}
	}
	return true, nil
}

// routesOf are the routes that name gw in a parentRef, as the cache holds them: read,
// never changed.
func (f *floor) routesOf(ctx context.Context, gw *gatewayv1.Gateway) ([]*gatewayv1.HTTPRoute, error) {
	routes := &gatewayv1.HTTPRouteList{}
	if err := f.List(ctx, routes, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	var out []*gatewayv1.HTTPRoute
	for i := range routes.Items {
		route := &routes.Items[i]
		for _, key := range parentGateways(route) {
			if key.Namespace == gw.Namespace && key.Name == gw.Name {
				out = append(out, route)
				break
			}
		}
	}
	return out, nil
}

// attachRoutes sets each listener's attachedRoutes in gw's status: the routes naming gw
// whose parentRef names the listener or none.
func attachRoutes(gw *gatewayv1.Gateway, routes []*gatewayv1.HTTPRoute) {
	for i := range gw.Status.Listeners {
		l := &gw.Status.Listeners[i]
		l.AttachedRoutes = 0
		for _, route := range routes {
			for _, ref := range route.Spec.ParentRefs {
				key, ok := parentGateway(route, ref)
				if ok && key.Namespace == gw.Namespace && key.Name == gw.Name && (ref.SectionName == nil || *ref.SectionName == l.Name) {
					l.AttachedRoutes++
					break
				}
			}
		}
	}
}
