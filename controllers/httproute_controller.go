package controllers

import (
	"context"
	"errors"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/values"
)

// HTTPRouteReconciler renders the route templates for each HTTPRoute on each parent
// Gateway of Gatewright's classes, and writes Gatewright's RouteParentStatus entries.
type HTTPRouteReconciler struct {
	client.Client
	Applier             *apply.Applier
	Blueprints          *render.Cache
	Recorder            record.EventRecorder
	ControllerNamespace string

	shard   shard
	watches *objectWatches
}

// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes/finalizers,verbs=update

func (r *HTTPRouteReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	route := &gatewayv1.HTTPRoute{}
	if err := r.Get(ctx, req.NamespacedName, route); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	previous, err := apply.DecodeRouteInventory(route.Annotations[apply.RouteInventoryAnnotation])
	if err != nil {
		return ctrl.Result{}, err
	}
	var parents []routeParent
	if route.DeletionTimestamp.IsZero() {
		if parents, err = r.parents(ctx, route); err != nil {
			return ctrl.Result{}, err
		}
	}
	elsewhere := &gatewaysElsewhere{reader: r.Client, shard: r.shard, known: map[string]bool{}}

	inventory := apply.RouteInventory{}
	statuses := map[string][]gatewayv1.RouteParentStatus{}
	var errs []error
	for _, parent := range parents {
		inv, status, err := r.reconcileParent(ctx, route, parent, previous[parent.key()])
		statuses[parent.key()] = status
		if len(inv) > 0 {
			inventory[parent.key()] = inv
		}
		errs = append(errs, err)
	}
	// Parents the route left, or that left Gatewright: their objects go. The objects on
	// another shard's Gateways are that shard's to keep or delete.
	for key, inv := range previous {
		if _, still := statuses[key]; still {
			continue
		}
		theirs, err := elsewhere.has(ctx, key)
		if err == nil && !theirs {
			namespace, name, _ := strings.Cut(key, "/")
			var deleted []string
			deleted, err = r.Applier.DeleteAll(ctx, routeOwner(route, namespace, name), inv)
			countCleanup(metrics.KindHTTPRoute, deleted)
		}
		if err != nil || theirs {
			inventory[key] = inv
		}
		errs = append(errs, err)
	}
	if err := r.save(ctx, route, inventory); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, errors.Join(append(errs, r.patchStatus(ctx, route, statuses, elsewhere))...)
}

// routeParent is a Gateway of this shard's classes that the route names.
type routeParent struct {
	gateway *gatewayv1.Gateway
	class   *gatewayv1.GatewayClass
	refs    []gatewayv1.ParentReference
}

func (p routeParent) key() string { return p.gateway.Namespace + "/" + p.gateway.Name }

// parents finds the Gateways of this shard's classes among the route's parentRefs.
func (r *HTTPRouteReconciler) parents(ctx context.Context, route *gatewayv1.HTTPRoute) ([]routeParent, error) {
	seen := map[types.NamespacedName]bool{}
	var parents []routeParent
	for _, ref := range route.Spec.ParentRefs {
		key := types.NamespacedName{Namespace: route.Namespace, Name: string(ref.Name)}
		if ref.Namespace != nil {
			key.Namespace = string(*ref.Namespace)
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		gw := &gatewayv1.Gateway{}
		if err := r.Get(ctx, key, gw); err != nil {
			if client.IgnoreNotFound(err) != nil {
				return nil, err
			}
			continue
		}
		refs := attach.ParentRefsTo(route, gw)
		if len(refs) == 0 || !gw.DeletionTimestamp.IsZero() {
			continue
		}
		class, err := getClass(ctx, r.Client, string(gw.Spec.GatewayClassName))
		if err != nil {
			return nil, err
		}
		if r.shard.ownership(class) == ownedHere {
			parents = append(parents, routeParent{gateway: gw, class: class, refs: refs})
		}
	}
	return parents, nil
}

// reconcileParent renders and applies the route's objects on one parent Gateway and
// returns what is applied and the status of each parentRef naming it.
func (r *HTTPRouteReconciler) reconcileParent(ctx context.Context, route *gatewayv1.HTTPRoute, parent routeParent, previous apply.Inventory) (apply.Inventory, []gatewayv1.RouteParentStatus, error) {
	namespaceLabels, err := labelsOfNamespace(ctx, r.Client, route.Namespace)
	if err != nil {
		return previous, nil, err
	}
	statuses := make([]gatewayv1.RouteParentStatus, len(parent.refs))
	attached := false
	for i, ref := range parent.refs {
		single := route.DeepCopy()
		single.Spec.ParentRefs = []gatewayv1.ParentReference{ref}
		accepted := len(attach.Listeners(parent.gateway, single, namespaceLabels)) > 0
		statuses[i] = routeParentStatus(route, ref, accepted)
		attached = attached || accepted
	}
	owner := routeOwner(route, parent.gateway.Namespace, parent.gateway.Name)
	if !attached {
		deleted, err := r.Applier.DeleteAll(ctx, owner, previous)
		countCleanup(metrics.KindHTTPRoute, deleted)
		if err != nil {
			return previous, statuses, err
		}
		return nil, statuses, nil
	}

	out, policies, err := r.render(ctx, route, parent, previous)
	for i := range statuses {
		setRouteAffected(&statuses[i], route, policies)
	}
	failure := "RenderFailed"
	if err == nil {
		failure = "ApplyFailed"
	}
	if err == nil && len(out.Objects) > 0 {
		// The finalizer is in place before the first object exists.
		err = ensureFinalizer(ctx, r.Client, route)
	}
	if err == nil {
		var applied *apply.Result
		start := time.Now()
		applied, err = r.Applier.Apply(ctx, owner, out.Objects, previous, keepWaiting(out.Waiting))
		countApply(metrics.KindHTTPRoute, start, applied, err)
		if err == nil {
			if len(applied.Changed) > 0 {
				r.Recorder.Event(route, "Normal", "Applied", "applied "+strings.Join(applied.Changed, ", "))
			}
			if err := r.watches.ensure(ctx, out.Objects); err != nil {
				return previous, statuses, err
			}
			return applied.Applied.Union(kept(previous, out.Waiting)), statuses, nil
		}
	}
	r.Recorder.Event(route, "Warning", failure, err.Error())
	for i := range statuses {
		setRouteCondition(&statuses[i], route, gatewayv1.RouteConditionAccepted, false, gatewayv1.RouteReasonUnsupportedValue,
			"Gateway "+parent.key()+": "+err.Error()+"; the objects applied before are left as they are")
	}
	var conflict *apply.ConflictError
	if errors.As(err, &conflict) || isInputError(err) {
		err = nil // nothing to retry until the input changes
	}
	return previous, statuses, err
}

// render computes the route's values on parent and renders its templates; it also
// returns the policies that took part in the values.
func (r *HTTPRouteReconciler) render(ctx context.Context, route *gatewayv1.HTTPRoute, parent routeParent, previous apply.Inventory) (_ *render.Output, _ []values.PolicyReport, err error) {
	in, err := loadValueInputs(ctx, r.Client, r.ControllerNamespace, parent.class, parent.gateway.Namespace, route.Namespace)
	if err != nil {
		return nil, nil, err
	}
	defer func() { countRender(metrics.KindHTTPRoute, in.Blueprint.Name, err) }()
	parsed, err := r.Blueprints.Get(in.Blueprint)
	if err != nil {
		return nil, nil, err
	}
	in.Schema = parsed.ValuesSchema()
	start := time.Now()
	vals, err := in.ForHTTPRoute(parent.gateway, route)
	observeSince(metrics.ValuesMergeDuration, metrics.KindHTTPRoute, start)
	if err != nil {
		if vals != nil {
			return nil, vals.Policies, err
		}
		return nil, nil, err
	}
	live, err := r.Applier.Live(ctx, previous)
	if err != nil {
		return nil, vals.Policies, err
	}
	start = time.Now()
	out, err := parsed.HTTPRoute(render.Input{
		Values: vals.Values, Gateway: parent.gateway, GatewayClass: parent.class,
		Live: live, IsReady: apply.Ready, IsNamespaced: namespacedBy(r.Client),
	}, route)
	observeSince(metrics.RenderDuration, metrics.KindHTTPRoute, start)
	return out, vals.Policies, err
}

// save records the route inventory and lets go of the route once nothing is left. The
// inventory holds the entries of other shards too.
func (r *HTTPRouteReconciler) save(ctx context.Context, route *gatewayv1.HTTPRoute, inventory apply.RouteInventory) error {
	original := route.DeepCopy()
	setAnnotation(route, apply.RouteInventoryAnnotation, inventory.Encode())
	if len(inventory) == 0 {
		controllerutil.RemoveFinalizer(route, gatewayFinalizer)
	}
	if equality.Semantic.DeepEqual(original.ObjectMeta, route.ObjectMeta) {
		return nil
	}
	return client.IgnoreNotFound(r.Patch(ctx, route, r.shard.patchFrom(original)))
}

// routeOwner is the apply.Owner of a route's objects on one Gateway.
func routeOwner(route *gatewayv1.HTTPRoute, gatewayNamespace, gatewayName string) apply.Owner {
	return apply.Owner{
		Object: route,
		GVK:    gatewayv1.SchemeGroupVersion.WithKind("HTTPRoute"),
		Labels: map[string]string{
			gatewayv1.GatewayNameLabelKey:              gatewayName,
			gatewrightv1alpha1.LabelGatewayNamespace:   gatewayNamespace,
			gatewrightv1alpha1.LabelHTTPRouteName:      route.Name,
			gatewrightv1alpha1.LabelHTTPRouteNamespace: route.Namespace,
		},
	}
}

func (r *HTTPRouteReconciler) SetupWithManager(mgr ctrl.Manager) error {
	c, err := ctrl.NewControllerManagedBy(mgr).
		For(&gatewayv1.HTTPRoute{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&gatewayv1.Gateway{}, mapTo(r.routesOfGateway), builder.WithPredicates(gatewaySpecOrAddressesChanged)).
		Watches(&gatewayv1.GatewayClass{}, mapTo(r.routesOfClass)).
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, mapTo(r.routesOfBlueprint)).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, mapTo(r.routesNearPolicy)).
		Watches(&gatewrightv1alpha1.GatewayConfig{}, mapTo(r.routesNearPolicy)).
		Named("httproute").
		Build(r)
	if err != nil {
		return err
	}
	r.watches = newObjectWatches(c, mgr.GetCache(), r.routeOfObject)
	return nil
}
