package controllers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/summary"
	"github.com/gatewright/gatewright/internal/translate"
)

// BlueprintReconciler sets Accepted and Linted on GatewayClassBlueprints, so that a
// provider sees a broken or risky blueprint on the object they applied, and keeps the
// history of their accepted specs as numbered revisions (blueprint_revisions.go). A blueprint may serve the
// classes of several shards, so only the primary shard writes its status; every instance
// keeps its own parsed copy.
type BlueprintReconciler struct {
	fleetJudge
	// ControllerNamespace holds the class-wide GatewayClassConfigs, those that may ride
	// the blueprint's rollouts.
	ControllerNamespace string

	sent sentAssignments
}

// +kubebuilder:rbac:groups=gatewright.dev,resources=gatewayclassblueprints,verbs=get;list;watch
// +kubebuilder:rbac:groups=gatewright.dev,resources=gatewayclassblueprints/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=gatewright.dev,resources=gatewayclassblueprintrevisions,verbs=get;list;watch;create;delete

func (r *BlueprintReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
	if err := r.Get(ctx, req.NamespacedName, bp); err != nil {
		if apierrors.IsNotFound(err) {
			r.Blueprints.Forget(req.Name)
			r.sent.seen(req.Name, nil)
			metrics.ForgetRollbacks(req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if primary, err := r.shard.primary(ctx, r.Client); err != nil || !primary {
		return ctrl.Result{}, err
	}
	original := *bp.Status.DeepCopy()
	h, err := r.historyOf(ctx, bp)
	if err != nil {
		return ctrl.Result{}, err
	}
	// Listed once: the revision's riding configs and the Gateways counted are those of
	// the same classes.
	classes, err := classesUsing(ctx, r.Client, bp.Name)
	if err != nil {
		return ctrl.Result{}, err
	}
	riding, err := r.ridingConfigs(ctx, bp, classes)
	if err != nil {
		return ctrl.Result{}, err
	}
	hash, err := revisions.Hash(&bp.Spec, riding)
	if err != nil {
		return ctrl.Result{}, err
	}
	renderings, err := r.renderingsOf(ctx, bp.Name)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.sent.seen(bp.Name, renderings)
	accepted, linted := r.judge(parsedForm(bp, h, hash))
	if err := r.revise(ctx, bp, accepted.OK, h, hash, riding, renderings); err != nil {
		return ctrl.Result{}, err
	}
	conditions.Set(&bp.Status.Conditions, "Accepted", accepted.OK, accepted.Reason, accepted.Message, bp.Generation)
	conditions.Set(&bp.Status.Conditions, gatewrightv1alpha1.ConditionLinted, linted.OK, linted.Reason, linted.Message, bp.Generation)
	gateways, err := r.gatewaysOf(ctx, classes)
	if err != nil {
		return ctrl.Result{}, err
	}
	if bp.Status.FailingGateways, err = r.setRendered(ctx, bp, &bp.Status.Conditions, original.Conditions, gateways); err != nil {
		return ctrl.Result{}, err
	}
	records := gatewayRecords(renderings)
	step, err := r.stepRollout(ctx, bp, gateways, records)
	if err != nil {
		return ctrl.Result{}, err
	}
	if active(bp.Status.Rollout) && equality.Semantic.DeepEqual(original.Rollout, bp.Status.Rollout) {
		// While a gate is open the counts ride the rollout's own writes, one as each
		// wave starts, rather than adding writes of their own.
		bp.Status.Revisions = original.Revisions
	}
	summary.Set(&bp.Status.Conditions, summary.Blueprint(&bp.Status), bp.Generation)
	bp.Status.ObservedGeneration = bp.Generation
	// The status goes first, against the version read: a stale read is refused and
	// retried rather than stepping a rollout that has moved on.
	if err := ctrlutil.WriteStatus(ctx, r.Client, bp, original, bp.Status, func(status gatewrightv1alpha1.GatewayClassBlueprintStatus) gatewrightv1alpha1.GatewayClassBlueprintStatus {
		status.Conditions = conditions.Short(status.Conditions)
		return status
	}, ctrlutil.OptimisticLock(bp)); err != nil {
		return ctrl.Result{}, err
	}
	r.recordRolloutEvents(bp, original.Rollout, bp.Status.Rollout)
	metrics.CountRollback(bp.Name, original.Rollout, bp.Status.Rollout)
	return ctrl.Result{RequeueAfter: step.RequeueAfter}, r.assign(ctx, bp, step, records)
}

// judge is the blueprint's Accepted and Linted verdicts: whether it parses, and what
// gatewright lint --strict says of it.
func (r *BlueprintReconciler) judge(bp *gatewrightv1alpha1.GatewayClassBlueprint) (accepted, linted translate.Verdict) {
	parsed, err := r.Blueprints.Get(bp)
	if err != nil {
		return translate.Verdict{Reason: gatewrightv1alpha1.ReasonInvalidTemplates, Message: err.Error()},
			translate.Verdict{Reason: gatewrightv1alpha1.ReasonInvalidTemplates, Message: "the blueprint is not accepted"}
	}
	accepted = translate.Verdict{OK: true, Reason: "Accepted", Message: "the templates parse, dependsOn is sound and valuesSchema is valid"}
	warnings := parsed.Lint()
	if len(warnings) == 0 {
		return accepted, translate.Verdict{OK: true, Reason: gatewrightv1alpha1.ReasonNoWarnings, Message: "gatewright lint --strict finds nothing to warn about"}
	}
	lines := make([]string, len(warnings))
	for i, w := range warnings {
		lines[i] = w.String()
	}
	return accepted, translate.Verdict{Reason: gatewrightv1alpha1.ReasonWarnings, Message: fmt.Sprintf("%d warning(s), as gatewright lint prints them: %s", len(warnings), strings.Join(lines, "; "))}
}

// gatewaysOf lists the Gateways of classes, uncopied from the cache: their status is
// only read.
func (r *BlueprintReconciler) gatewaysOf(ctx context.Context, classes []types.NamespacedName) ([]gatewayv1.Gateway, error) {
	var out []gatewayv1.Gateway
	for _, class := range classes {
		var gateways gatewayv1.GatewayList
		if err := r.List(ctx, &gateways, client.MatchingFields{indexGatewayClassName: class.Name}, client.UnsafeDisableDeepCopy); err != nil {
			return nil, err
		}
		out = append(out, gateways.Items...)
	}
	return out, nil
}

// blueprintOfGateway maps a Gateway to the blueprint its class names.
func (r *BlueprintReconciler) blueprintOfGateway(ctx context.Context, obj client.Object) []reconcile.Request {
	class, err := getClass(ctx, r.Client, string(obj.(*gatewayv1.Gateway).Spec.GatewayClassName))
	blueprint, ok := translate.ClassBlueprint(class)
	if err != nil || !ok {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: blueprint}}}
}

// blueprintsOfRoute maps a route to the blueprints of its parent Gateways' classes.
func (r *BlueprintReconciler) blueprintsOfRoute(ctx context.Context, obj client.Object) []reconcile.Request {
	var requests []reconcile.Request
	for _, key := range attach.ParentGateways(obj) {
		gw := &gatewayv1.Gateway{}
		if err := r.Get(ctx, key, gw); err != nil {
			continue
		}
		for _, req := range r.blueprintOfGateway(ctx, gw) {
			if !slices.Contains(requests, req) {
				requests = append(requests, req)
			}
		}
	}
	return requests
}

// SetupWithManager watches the revisions too: their informer then syncs before the
// workers start, rather than in a reconcile's first read, and a revision deleted by
// hand has the history and status read again.
func (r *BlueprintReconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr)
	for _, kind := range r.routeKinds {
		b = b.Watches(routes.New(kind), ctrlutil.MapTo(r.blueprintsOfRoute), builder.WithPredicates(routeRenderFailureChanged))
	}
	return b.
		For(&gatewrightv1alpha1.GatewayClassBlueprint{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, rolloutAsked))).
		Owns(&gatewrightv1alpha1.GatewayClassBlueprintRevision{}, builder.WithPredicates(ctrlutil.Deleted)).
		Watches(&gatewayv1.Gateway{}, ctrlutil.MapTo(r.blueprintOfGateway), builder.WithPredicates(renderFailureChanged)).
		Watches(&gatewrightv1alpha1.Rendering{}, ctrlutil.Coalesced(renderingsOfRevisions, recountAfter), revisionRecordChanged).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, ctrlutil.MapTo(r.blueprintsOfClassConfig), ctrlutil.SpecChanged).
		Watches(&gatewayv1.GatewayClass{}, ctrlutil.MapTo(r.allBlueprints), builder.WithPredicates(predicate.Funcs{UpdateFunc: func(event.UpdateEvent) bool { return false }})).
		Named("gatewayclassblueprint").
		Complete(ctrlutil.RetryingConflicts(r, staleRecord))
}

// allBlueprints: a GatewayClass that comes or goes can make this instance primary.
func (r *BlueprintReconciler) allBlueprints(ctx context.Context, _ client.Object) []reconcile.Request {
	var blueprints gatewrightv1alpha1.GatewayClassBlueprintList
	if err := r.List(ctx, &blueprints); err != nil {
		return nil
	}
	requests := make([]reconcile.Request, len(blueprints.Items))
	for i, bp := range blueprints.Items {
		requests[i] = reconcile.Request{NamespacedName: types.NamespacedName{Name: bp.Name}}
	}
	return requests
}

// fleetJudge is what the blueprint and GatewayClass reconcilers share: both judge a
// blueprint and sum up how the Gateways it serves render (translate.FleetRendered).
type fleetJudge struct {
	client.Client
	Blueprints *render.Cache
	Recorder   record.EventRecorder
	// routeKinds are the route kinds the API server serves (servedRouteKinds).
	routeKinds []string

	shard shard
}

// setRendered sets obj's gatewright.dev/Rendered condition in conds (whose state was
// before) from how gateways and the routes on them render, records an event when it
// turns, and returns how many Gateways fail.
func (j *fleetJudge) setRendered(ctx context.Context, obj client.Object, conds *[]metav1.Condition, before []metav1.Condition, gateways []gatewayv1.Gateway) (int32, error) {
	attached, err := routesOnGateways(ctx, j.Client, j.routeKinds, gateways)
	if err != nil {
		return 0, err
	}
	rendered, failing := translate.FleetRendered(gateways, attached)
	conditions.Set(conds, gatewrightv1alpha1.ConditionRendered, rendered.OK, rendered.Reason, rendered.Message, obj.GetGeneration())
	recordConditionChange(j.Recorder, obj, before, *meta.FindStatusCondition(*conds, gatewrightv1alpha1.ConditionRendered))
	return failing, nil
}
