package controllers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// GatewayClassReconciler sets Accepted on the GatewayClasses Gatewright implements, and
// holds each with the Gateway API's finalizer while Gateways use it, so that a class is
// not deleted from under Gateways that are still programmed.
type GatewayClassReconciler struct {
	client.Client
	Blueprints *render.Cache
	Recorder   record.EventRecorder

	shard shard
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

	original := class.DeepCopy()
	condition := metav1.Condition{
		Type:               string(gatewayv1.GatewayClassConditionStatusAccepted),
		Status:             metav1.ConditionTrue,
		Reason:             string(gatewayv1.GatewayClassReasonAccepted),
		ObservedGeneration: class.Generation,
	}
	bp, err := snapshot.Blueprint(ctx, r.Client, class)
	if err == nil {
		if _, err = r.Blueprints.Get(bp); err != nil {
			err = fmt.Errorf("GatewayClassBlueprint %s is not accepted: %w", bp.Name, err)
		}
	}
	if err != nil {
		var invalid *translate.InvalidParametersError
		if !translate.AsInvalidParameters(err, &invalid) {
			return ctrl.Result{}, err
		}
		condition.Status, condition.Reason, condition.Message = metav1.ConditionFalse, string(gatewayv1.GatewayClassReasonInvalidParameters), err.Error()
	} else {
		condition.Message = "implemented by GatewayClassBlueprint " + bp.Name
	}
	if !class.DeletionTimestamp.IsZero() {
		condition.Message += fmt.Sprintf("; being deleted: waits until its %d Gateway(s) are gone", len(gateways.Items))
	}
	condition.Message = conditions.Message(condition.Message)
	meta.SetStatusCondition(&class.Status.Conditions, condition)
	class.Status.SupportedFeatures = supportedFeatures()
	routes, err := routesOnGateways(ctx, r.Client, gateways.Items)
	if err != nil {
		return ctrl.Result{}, err
	}
	rendered, _ := renderedCondition(gateways.Items, routes, class.Generation)
	meta.SetStatusCondition(&class.Status.Conditions, rendered)
	recordConditionChange(r.Recorder, class, original.Status.Conditions, rendered)
	if err := r.setAffected(ctx, class); err != nil {
		return ctrl.Result{}, err
	}
	if equality.Semantic.DeepEqual(original.Status, class.Status) {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, r.Status().Patch(ctx, class, client.MergeFrom(original))
}

// supportedFeatures are the Gateway API features (GEP-2162) of every class Gatewright
// implements, sorted by name as the API asks: what Gatewright itself does, whatever the
// blueprint, and the status-only conformance run passes (docs/conformance). What a
// blueprint's data plane does with traffic is not Gatewright's to claim.
func supportedFeatures() []gatewayv1.SupportedFeature {
	names := []features.FeatureName{
		features.SupportGateway,
		features.SupportGatewayInfrastructure,
		features.SupportGatewayPort8080,
		features.SupportHTTPRoute,
		features.SupportHTTPRouteParentRefPort,
		features.SupportReferenceGrant,
	}
	slices.Sort(names)
	out := make([]gatewayv1.SupportedFeature, len(names))
	for i, name := range names {
		out[i] = gatewayv1.SupportedFeature{Name: gatewayv1.FeatureName(name)}
	}
	return out
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
	meta.SetStatusCondition(&class.Status.Conditions, metav1.Condition{
		Type: gatewrightv1alpha1.ConditionGatewayClassConfigAffected, Status: metav1.ConditionTrue, Reason: "Affected",
		Message: conditions.Message("targeted by GatewayClassConfig " + strings.Join(names, ", ")), ObservedGeneration: class.Generation,
	})
	return nil
}

func (r *GatewayClassReconciler) classesOfClassConfig(_ context.Context, obj client.Object) []reconcile.Request {
	var names []types.NamespacedName
	for _, ref := range obj.(*gatewrightv1alpha1.GatewayClassConfig).Spec.TargetRefs {
		if ref.Kind == "GatewayClass" {
			names = append(names, types.NamespacedName{Name: string(ref.Name)})
		}
	}
	return requestsFor(names)
}

// classesOfRoute maps a route to the classes of its parent Gateways.
func (r *GatewayClassReconciler) classesOfRoute(ctx context.Context, obj client.Object) []reconcile.Request {
	route := obj.(*gatewayv1.HTTPRoute)
	var requests []reconcile.Request
	for _, ref := range route.Spec.ParentRefs {
		key, isGateway := attach.ParentGateway(route, ref)
		gw := &gatewayv1.Gateway{}
		if !isGateway || r.Get(ctx, key, gw) != nil {
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
	return ctrl.NewControllerManagedBy(mgr).
		For(&gatewayv1.GatewayClass{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, finalizersChanged))).
		Watches(&gatewayv1.Gateway{}, handler.EnqueueRequestsFromMapFunc(r.classOfGateway), builder.WithPredicates(predicate.Or[client.Object](gatewayClassNameChanged, renderFailureChanged))).
		Watches(&gatewayv1.HTTPRoute{}, handler.EnqueueRequestsFromMapFunc(r.classesOfRoute), builder.WithPredicates(routeRenderFailureChanged)).
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, handler.EnqueueRequestsFromMapFunc(r.classesOfBlueprint), specChanged).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, handler.EnqueueRequestsFromMapFunc(r.classesOfClassConfig)).
		Named("gatewayclass").
		Complete(retryingConflicts(r))
}

func (r *GatewayClassReconciler) classesOfBlueprint(ctx context.Context, obj client.Object) []reconcile.Request {
	return requestsFor(classesUsing(ctx, r.Client, obj.GetName()))
}

// classesUsing lists the names of Gatewright's GatewayClasses that use blueprint.
func classesUsing(ctx context.Context, c client.Reader, blueprint string) []types.NamespacedName {
	var classes gatewayv1.GatewayClassList
	if err := c.List(ctx, &classes); err != nil {
		return nil
	}
	var out []types.NamespacedName
	for _, class := range classes.Items {
		if ref := class.Spec.ParametersRef; class.Spec.ControllerName == gatewrightv1alpha1.ControllerName && ref != nil && ref.Name == blueprint {
			out = append(out, types.NamespacedName{Name: class.Name})
		}
	}
	return out
}
