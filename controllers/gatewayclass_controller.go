package controllers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// GatewayClassReconciler sets Accepted on the GatewayClasses Gatewright implements, and
// holds each with the Gateway API's finalizer while Gateways use it, so that a class is
// not deleted from under Gateways that are still programmed.
type GatewayClassReconciler struct {
	fleetJudge
}

// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gatewayclasses,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gatewayclasses/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gatewayclasses/finalizers,verbs=update

func (r *GatewayClassReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	class := &gatewayv1.GatewayClass{}
	if err := r.Get(ctx, req.NamespacedName, class); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.shard.ownership(class) != ownedHere {
		return ctrl.Result{}, nil
	}
	// Every Gateway created reconciles its class: while the class is not being deleted,
	// whether it has a Gateway is all there is to know, and listing all of them each
	// time would cost the controller O(N²) as they are created.
	var gateways gatewayv1.GatewayList
	opts := []client.ListOption{client.MatchingFields{indexGatewayClassName: class.Name}, client.UnsafeDisableDeepCopy}
	if class.DeletionTimestamp.IsZero() {
		opts = append(opts, client.Limit(1))
	}
	if err := r.List(ctx, &gateways, opts...); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.holdWhileUsed(ctx, class, len(gateways.Items)); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !class.DeletionTimestamp.IsZero() && len(gateways.Items) == 0 {
		return ctrl.Result{}, nil // let go of, the class is gone
	}

	original := *class.Status.DeepCopy()
	accepted, running, err := r.accepted(ctx, class)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !class.DeletionTimestamp.IsZero() {
		accepted.Message += fmt.Sprintf("; being deleted: waits until its %d Gateway(s) are gone", len(gateways.Items))
	}
	conditions.Set(&class.Status.Conditions, string(gatewayv1.GatewayClassConditionStatusAccepted), accepted.OK, accepted.Reason, accepted.Message, class.Generation)
	class.Status.SupportedFeatures = supportedFeatures(running)
	if _, err := r.setRendered(ctx, class, &class.Status.Conditions, original.Conditions, gateways.Items); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.setAffected(ctx, class); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, ctrlutil.WriteStatus(ctx, r.Client, class, original, class.Status, func(status gatewayv1.GatewayClassStatus) gatewayv1.GatewayClassStatus {
		status.Conditions = conditions.Short(status.Conditions)
		return status
	})
}

// accepted is the class's Accepted verdict: its blueprint is there and parses, as its
// Gateways run it (its current revision, once it has one), which it returns, nil when it
// cannot be used. An error reading the API is returned, to be retried.
func (r *GatewayClassReconciler) accepted(ctx context.Context, class *gatewayv1.GatewayClass) (translate.Verdict, *gatewrightv1alpha1.GatewayClassBlueprint, error) {
	bp, err := (&snapshot.Gatherer{Reader: r.Client}).RunningBlueprint(ctx, class)
	if err == nil {
		if _, err = r.Blueprints.Get(bp); err != nil {
			err = fmt.Errorf("GatewayClassBlueprint %s is not accepted: %w", bp.Name, err)
		}
	}
	if err != nil {
		var invalid *translate.InvalidParametersError
		if !translate.AsInvalidParameters(err, &invalid) {
			return translate.Verdict{}, nil, err
		}
		return translate.Verdict{Reason: string(gatewayv1.GatewayClassReasonInvalidParameters), Message: err.Error()}, nil, nil
	}
	return translate.Verdict{OK: true, Reason: string(gatewayv1.GatewayClassReasonAccepted), Message: "implemented by GatewayClassBlueprint " + bp.Name}, bp, nil
}

// supportedFeatures are the Gateway API features (GEP-2162) the class lists: those its
// blueprint, as its Gateways run it, says it serves (translate.SupportedFeatures); the
// default when its blueprint cannot be used, as a blueprint that says nothing has.
func supportedFeatures(running *gatewrightv1alpha1.GatewayClassBlueprint) []gatewayv1.SupportedFeature {
	if running == nil {
		return translate.SupportedFeatures(&gatewrightv1alpha1.GatewayClassBlueprintSpec{})
	}
	return translate.SupportedFeatures(&running.Spec)
}

// holdWhileUsed puts the Gateway API's finalizer on a class while Gateways use it (there
// are gateways of them), and takes it off when none does. A class being deleted gets no new finalizer (the API
// server would refuse it). The patch is locked, so that no other finalizer is lost.
func (r *GatewayClassReconciler) holdWhileUsed(ctx context.Context, class *gatewayv1.GatewayClass, gateways int) error {
	original := class.DeepCopy()
	var changed bool
	if gateways == 0 {
		changed = controllerutil.RemoveFinalizer(class, gatewayv1.GatewayClassFinalizerGatewaysExist)
	} else if class.DeletionTimestamp.IsZero() {
		changed = controllerutil.AddFinalizer(class, gatewayv1.GatewayClassFinalizerGatewaysExist)
	}
	if !changed {
		return nil
	}
	return r.Patch(ctx, class, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}))
}

// setAffected names the GatewayClassConfigs that target the class.
func (r *GatewayClassReconciler) setAffected(ctx context.Context, class *gatewayv1.GatewayClass) error {
	var configs gatewrightv1alpha1.GatewayClassConfigList
	if err := r.List(ctx, &configs); err != nil {
		return err
	}
	var names []string
	for _, gcc := range configs.Items {
		for _, ref := range gcc.Spec.TargetRefs {
			if ref.Kind == "GatewayClass" && string(ref.Name) == class.Name {
				names = append(names, gcc.Namespace+"/"+gcc.Name)
			}
		}
	}
	if len(names) == 0 {
		meta.RemoveStatusCondition(&class.Status.Conditions, gatewrightv1alpha1.ConditionGatewayClassConfigAffected)
		return nil
	}
	sort.Strings(names)
	conditions.Set(&class.Status.Conditions, gatewrightv1alpha1.ConditionGatewayClassConfigAffected, true, "Affected",
		"targeted by GatewayClassConfig "+strings.Join(names, ", "), class.Generation)
	return nil
}

func (r *GatewayClassReconciler) classesOfClassConfig(_ context.Context, obj client.Object) []reconcile.Request {
	var names []types.NamespacedName
	for _, ref := range obj.(*gatewrightv1alpha1.GatewayClassConfig).Spec.TargetRefs {
		if ref.Kind == "GatewayClass" {
			names = append(names, types.NamespacedName{Name: string(ref.Name)})
		}
	}
	return ctrlutil.RequestsFor(names)
}

// classesOfRoute maps a route to the classes of its parent Gateways.
func (r *GatewayClassReconciler) classesOfRoute(ctx context.Context, obj client.Object) []reconcile.Request {
	var requests []reconcile.Request
	for _, key := range attach.ParentGateways(obj) {
		gw := &gatewayv1.Gateway{}
		if r.Get(ctx, key, gw) != nil {
			continue
		}
		if req := r.classOfGateway(ctx, gw); !slices.Contains(requests, req[0]) {
			requests = append(requests, req[0])
		}
	}
	return requests
}

// classOfGateway maps a Gateway to its class; on a change of class, both the old and
// the new class are mapped.
func (r *GatewayClassReconciler) classOfGateway(_ context.Context, obj client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: string(obj.(*gatewayv1.Gateway).Spec.GatewayClassName)}}}
}

// gatewayClassNameChanged lets through the Gateway events that change how many
// Gateways a class has: creations, deletions and changes of class.
var gatewayClassNameChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.(*gatewayv1.Gateway).Spec.GatewayClassName != e.ObjectNew.(*gatewayv1.Gateway).Spec.GatewayClassName
	},
}

// finalizersChanged lets through a class whose finalizers changed, so that Gatewright's
// is put back when someone takes it off.
var finalizersChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		return !slices.Equal(e.ObjectOld.GetFinalizers(), e.ObjectNew.GetFinalizers())
	},
}

func (r *GatewayClassReconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr)
	for _, kind := range r.routeKinds {
		b = b.Watches(routes.New(kind), handler.EnqueueRequestsFromMapFunc(r.classesOfRoute), builder.WithPredicates(routeRenderFailureChanged))
	}
	return b.
		For(&gatewayv1.GatewayClass{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, finalizersChanged))).
		Watches(&gatewayv1.Gateway{}, handler.EnqueueRequestsFromMapFunc(r.classOfGateway), builder.WithPredicates(predicate.Or[client.Object](gatewayClassNameChanged, renderFailureChanged))).
		// A new currentRevision changes what the class's Gateways run, and so what it serves.
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, handler.EnqueueRequestsFromMapFunc(r.classesOfBlueprint),
			builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, currentRevisionMoved))).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, handler.EnqueueRequestsFromMapFunc(r.classesOfClassConfig)).
		Named("gatewayclass").
		Complete(ctrlutil.RetryingConflicts(r, staleRecord))
}

func (r *GatewayClassReconciler) classesOfBlueprint(ctx context.Context, obj client.Object) []reconcile.Request {
	classes, _ := classesUsing(ctx, r.Client, obj.GetName()) // a map function has nowhere to report it
	return ctrlutil.RequestsFor(classes)
}
