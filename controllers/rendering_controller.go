package controllers

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/routes"
)

// RenderingReconciler guarantees the clean-up: a Rendering whose owner is gone is
// deleted, and a Rendering being deleted (by this reconciler, by the Gateway or
// HTTPRoute reconciler, or by the garbage collector after its owner) keeps its finalizer
// until every object it lists that still carries its owner's labels is deleted. Tenants
// cannot write Renderings, so they cannot stop it.
type RenderingReconciler struct {
	client.Client
	Applier *apply.Applier
	// routeKinds are the route kinds the API server serves (servedRouteKinds).
	routeKinds []string

	shard shard
}

// +kubebuilder:rbac:groups=gatewright.dev,resources=renderings,verbs=get;list;watch;create;update;patch;delete

func (r *RenderingReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rendering := &gatewrightv1alpha1.Rendering{}
	if err := r.Get(ctx, req.NamespacedName, rendering); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if rendering.DeletionTimestamp.IsZero() {
		gone, err := r.ownerGone(ctx, rendering)
		if err != nil || !gone {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, client.IgnoreNotFound(r.Delete(ctx, rendering))
	}
	gw := &gatewayv1.Gateway{}
	err := r.Get(ctx, types.NamespacedName{Namespace: rendering.Owner.GatewayNamespace, Name: rendering.Owner.GatewayName}, gw)
	if client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, err
	}
	if err == nil {
		class, err := getClass(ctx, r.Client, string(gw.Spec.GatewayClassName))
		if err != nil {
			return ctrl.Result{}, err
		}
		if r.shard.ownership(class) == ownedElsewhere {
			return ctrl.Result{}, nil // that shard cleans up after its Gateways
		}
	}
	deleted, err := r.Applier.CleanUp(ctx, rendering)
	kind := metrics.KindGateway
	if rendering.Owner.Kind != apply.KindGateway {
		kind = metrics.KindOfRoute(rendering.Owner.Kind)
	}
	countCleanup(kind, deleted)
	if len(deleted) > 0 {
		log.FromContext(ctx).Info("deleted the objects rendered for "+rendering.Owner.Kind+" "+rendering.Namespace+"/"+rendering.Owner.Name, "objects", len(deleted))
	}
	return ctrl.Result{}, err
}

// renderingMayBeDone passes what may leave a Rendering to this reconciler: its creation
// (each one's owner is checked once, at start too), its deletion, and an update that
// marks it deleted or names another owner. The owner's own going comes through its
// watch. The writes of a Rendering's objects and values, a thousand in a class-wide
// change, leave it nothing to do.
var renderingMayBeDone = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	old, isOld := e.ObjectOld.(*gatewrightv1alpha1.Rendering)
	now, isNew := e.ObjectNew.(*gatewrightv1alpha1.Rendering)
	return !isOld || !isNew || !now.DeletionTimestamp.IsZero() || old.Owner != now.Owner
}}

// ownerGone tells whether the Gateway, or the route of the recorded kind and its parent
// Gateway, that the Rendering is for no longer exist or are being deleted; a route of a
// kind the API server no longer serves is gone. A route that left its parent, or a
// Gateway that left Gatewright, is the route and Gateway reconcilers' to judge.
func (r *RenderingReconciler) ownerGone(ctx context.Context, rendering *gatewrightv1alpha1.Rendering) (bool, error) {
	owners := []client.Object{&gatewayv1.Gateway{}}
	keys := []types.NamespacedName{{Namespace: rendering.Owner.GatewayNamespace, Name: rendering.Owner.GatewayName}}
	if rendering.Owner.Kind != apply.KindGateway {
		route := routes.New(rendering.Owner.Kind)
		if route == nil || !slices.Contains(r.routeKinds, rendering.Owner.Kind) {
			return true, nil
		}
		owners = append(owners, route)
		keys = append(keys, types.NamespacedName{Namespace: rendering.Namespace, Name: rendering.Owner.Name})
	}
	for i, owner := range owners {
		if err := r.Get(ctx, keys[i], owner); err != nil {
			return client.IgnoreNotFound(err) == nil, client.IgnoreNotFound(err)
		}
		if !owner.GetDeletionTimestamp().IsZero() {
			return true, nil
		}
	}
	return false, nil
}

// renderingsOfOwner maps a Gateway or a route to the Renderings that name it: a route's
// are those of its name and kind (routeKindOfLabels).
func (r *RenderingReconciler) renderingsOfOwner(ctx context.Context, obj client.Object) []reconcile.Request {
	selector := client.MatchingLabels{gatewayv1.GatewayNameLabelKey: obj.GetName(), gatewrightv1alpha1.LabelGatewayNamespace: obj.GetNamespace()}
	var opts []client.ListOption
	kind := routes.KindOf(obj) // empty for a Gateway: every object is a routes.Route
	isRoute := kind != ""
	if isRoute {
		selector = client.MatchingLabels{gatewrightv1alpha1.LabelHTTPRouteName: obj.GetName(), gatewrightv1alpha1.LabelHTTPRouteNamespace: obj.GetNamespace()}
		opts = append(opts, client.InNamespace(obj.GetNamespace()))
	}
	var list gatewrightv1alpha1.RenderingList
	if err := r.List(ctx, &list, append(opts, selector)...); err != nil {
		return nil
	}
	var requests []reconcile.Request
	for i := range list.Items {
		item := &list.Items[i]
		if isRoute && routeKindOfLabels(item.Labels) != kind {
			continue
		}
		requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(item)})
	}
	return requests
}

func (r *RenderingReconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).
		For(&gatewrightv1alpha1.Rendering{}, builder.WithPredicates(renderingMayBeDone)).
		Watches(&gatewayv1.Gateway{}, ctrlutil.MapTo(r.renderingsOfOwner), builder.WithPredicates(ctrlutil.Going))
	for _, kind := range r.routeKinds {
		b = b.Watches(routes.New(kind), ctrlutil.MapTo(r.renderingsOfOwner), builder.WithPredicates(ctrlutil.Going))
	}
	return b.
		Named("rendering").
		WithOptions(controller.Options{MaxConcurrentReconciles: 2, ReconciliationTimeout: reconcileTimeout}).
		Complete(ctrlutil.RetryingConflicts(r, staleRecord))
}
