package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// GatewayReconciler renders and applies the blueprint of each Gateway of Gatewright's
// classes, and reports its status.
type GatewayReconciler struct {
	programmer
	// routeLimits bound the routes one Gateway serves.
	routeLimits routing.Limits
	// namespaceBytes bounds what the Gateways of a namespace hold together.
	namespaceBytes *namespaceBytes
}

// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways/finalizers,verbs=update
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch
// +kubebuilder:rbac:groups=gatewright.dev,resources=gatewayclassconfigs;gatewayconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

func (r *GatewayReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	gw := &gatewayv1.Gateway{}
	if err := r.Get(ctx, req.NamespacedName, gw); err != nil {
		if apierrors.IsNotFound(err) {
			r.contested.wait(req, nil) // it waits for no name any more
		}
		// A Gateway that is gone leaves its Renderings to the Rendering reconciler.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	class, err := getClass(ctx, r.Client, string(gw.Spec.GatewayClassName))
	if err != nil {
		return ctrl.Result{}, err
	}
	owner := r.shard.ownership(class)
	if owner == ownedElsewhere {
		return ctrl.Result{}, nil // another shard programs it, and cleans up after it
	}
	rec, err := r.Applier.LoadRecord(ctx, apply.GatewayOwner(gw))
	if err != nil {
		return ctrl.Result{}, err
	}
	if rec.Deleting {
		return ctrl.Result{}, nil // the end of the Rendering's clean-up brings the Gateway back
	}
	if owner == unowned || !gw.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.tearDown(ctx, gw, class, rec)
	}

	judged, err := snapshot.Listeners(ctx, r.Client, gw, r.certificates.check(ctx))
	if err != nil {
		return ctrl.Result{}, err
	}
	status := newGatewayStatus(gw, judged)
	defer func() { err = errors.Join(err, r.patchStatus(ctx, gw, status)) }()

	snap, err := r.gather(ctx, gw, class, judged, rec)
	if err != nil {
		return status.fail(err)
	}
	status.accepted()
	status.attach(snap.Routes, snap.Attached)
	if status.noValidListener() {
		return ctrl.Result{}, nil
	}

	res, err := r.translate(ctx, snap, rec, status)
	if err != nil {
		r.Recorder.Event(gw, "Warning", "RenderFailed", err.Error())
		return status.invalid(err)
	}
	out := res.Output
	size := renderedBytes(out.Objects, res.Values.Values)
	if err := r.namespaceBytes.admit(gw.Namespace, gw.Name, rec.RenderedBytes, size); err != nil {
		return status.overNamespaceBytes(err)
	}
	rec.RenderedBytes = size
	if err := r.adoptLegacy(ctx, gw, rec, snap.Values.Blueprint); err != nil {
		return ctrl.Result{}, err
	}
	start, first := time.Now(), !rec.Exists()
	applied, err := r.Applier.ApplyRecorded(ctx, rec, out.Objects, keepWaiting(out.Waiting))
	countApply(metrics.KindGateway, start, applied, err)
	recordChanges(r.Recorder, gw, rec, first, applied)
	if staleRecord(err) {
		status.unchanged()
		return ctrl.Result{}, err // retried by ctrlutil.RetryingConflicts; the status keeps its last verdict
	}
	retry := r.contested.wait(req, refusedNames(err))
	if err != nil {
		r.Recorder.Event(gw, "Warning", "ApplyFailed", err.Error())
		logRefusedApply(ctx, err)
		result, err := status.applyFailed(err)
		if retry > 0 {
			// Refused a name another owner holds: back when it is let go (contested.go),
			// which the watch of its kind sees.
			return ctrl.Result{RequeueAfter: retry}, r.watches.ensure(ctx, out.Objects)
		}
		return result, err
	}
	if err := r.watches.ensure(ctx, out.Objects); err != nil {
		return ctrl.Result{}, err
	}
	settled, more, err := settle(apply.GatewayOwner(gw), res.Blueprint, res.Input, out, applied)
	if err != nil {
		r.Recorder.Event(gw, "Warning", "RenderFailed", err.Error())
		return status.invalid(err)
	}
	res.Output = settled
	status.programmed(res, applied.NotReady, res.Blueprint.HasStatus())
	if more {
		// The next round reads this one's objects from the cache, a few milliseconds behind.
		return ctrl.Result{RequeueAfter: ctrlutil.StaleCacheRetry}, nil
	}
	return ctrl.Result{}, nil
}

// settle renders once more with the objects as this round's apply left them, when it
// created or changed any: the status template then reports what was just created, and
// Programmed says so, in this round's one status write rather than after the cache
// catches up. When no template can render other objects now (render's
// ObjectsMayChange), only the status template runs again. When the new render has
// objects the apply did not (a template that waited for one of them may run now), it
// says so: they are applied in the next round, asked for at once, and the status stays
// as the first render made it.
func settle(owner apply.Owner, parsed *render.Blueprint, input render.Input, out *render.Output, applied *apply.Result) (*render.Output, bool, error) {
	if len(applied.Changed) == 0 {
		return out, false, nil
	}
	input.Live = map[string][]*unstructured.Unstructured{}
	for _, obj := range applied.Live {
		template := obj.GetLabels()[gatewrightv1alpha1.LabelTemplate]
		input.Live[template] = append(input.Live[template], obj)
	}
	if !parsed.ObjectsMayChange(out) {
		again, err := parsed.GatewayStatus(input, out)
		return again, false, err
	}
	again, err := parsed.Gateway(input)
	if err != nil {
		return nil, false, err
	}
	if !applied.Applied.Covers(apply.Plan(owner, again.Objects)) || len(again.Waiting) < len(out.Waiting) {
		return out, true, nil
	}
	return again, false, nil
}

// translate computes the values and renders the blueprint, with the live objects of
// the Gateway's inventory as .Resources.
func (r *GatewayReconciler) translate(ctx context.Context, snap *translate.Gateway, rec *apply.Record, status *gatewayStatus) (_ *translate.Result, err error) {
	defer func() { countRender(metrics.KindGateway, snap.Values.Blueprint.Name, err) }()
	// The objects that templates or readyWhen read are read whole; the cache holds the
	// others without their content. A blueprint that does not parse reads none: its
	// error comes from the translation.
	if parsed, err := r.Blueprints.Get(snap.Values.Blueprint); err == nil {
		rec.ReadsWhole = parsed.ReadsWhole(false)
	}
	live, err := r.Applier.LiveRecorded(ctx, rec)
	if err != nil {
		return nil, err
	}
	res := snap.Translate(r.Blueprints, translate.Live{Objects: live, IsReady: apply.Readiness, IsNamespaced: r.scopes.IsNamespaced})
	observeTranslation(metrics.KindGateway, res)
	if res.Values != nil {
		status.affected(res.Values.Policies)
	}
	if res.Err != nil {
		return res, res.Err
	}
	// The applier judges the objects as the render did: by readyWhen, else kstatus.
	rec.Readiness = res.Input.IsReady
	// The routes read which of them the Gateway left out from its record.
	rec.RouteCutoff = translate.RecordedCutoff(res.Cutoff)
	// Saved with the objects, so that readers of the Rendering see what they came from.
	return res, rec.Rendered(res.Values, snap.Class.Name, snap.Values.Blueprint, snap.Revision)
}

// tearDown lets go of a Gateway that is being deleted or whose class is gone or another
// controller's: its Renderings are deleted, and their finalizer has the Rendering
// reconciler delete the objects. A Gateway whose class is gone says so first, so that
// nothing disappears from under a Gateway that still says Programmed. Every instance may
// do this when no instance implements the class: deletes are guarded by the owner's labels.
func (r *GatewayReconciler) tearDown(ctx context.Context, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, rec *apply.Record) error {
	var bp *gatewrightv1alpha1.GatewayClassBlueprint
	if r.shard.ownership(class) == ownedHere {
		bp, _ = snapshot.Blueprint(ctx, r.Client, class) // without it, no cluster-scoped entry is adopted
	}
	if err := r.adoptLegacy(ctx, gw, rec, bp); err != nil {
		return err
	}
	if !rec.Exists() {
		return nil
	}
	if class == nil && gw.DeletionTimestamp.IsZero() {
		status := newGatewayStatus(gw, listeners.Evaluate(gw.Spec.Listeners, nil))
		status.notAccepted(gatewayv1.GatewayReasonInvalid, fmt.Sprintf("GatewayClass %s not found; the objects rendered for this Gateway are deleted", gw.Spec.GatewayClassName))
		if err := r.patchStatus(ctx, gw, status); err != nil {
			return err
		}
	}
	log.FromContext(ctx).Info("deleting the objects rendered for the Gateway", "objects", len(rec.Inventory))
	return r.Applier.DeleteRecord(ctx, rec)
}

func (r *GatewayReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return r.setUp(mgr, ctrl.NewControllerManagedBy(mgr).
		For(&gatewayv1.Gateway{}, ctrlutil.SpecChanged).
		Watches(&gatewayv1.GatewayClass{}, ctrlutil.MapTo(r.gatewaysOfClass), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, ctrlutil.MapTo(r.gatewaysOfBlueprint), builder.WithPredicates(blueprintComesOrGoes)).
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, ctrlutil.MapTo(r.gatewaysOnCurrentRevision), builder.WithPredicates(currentRevisionMoved)).
		Watches(&gatewrightv1alpha1.Rendering{}, ctrlutil.MapTo(r.gatewayOfObject), targetRevisionChanged).
		Watches(&gatewrightv1alpha1.Rendering{}, ctrlutil.MapTo(r.gatewayOfRouteRecord), routeRefusalChanged).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, ctrlutil.MapTo(r.gatewaysOfClassConfig), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayConfig{}, ctrlutil.MapTo(r.gatewaysInNamespaceOf), ctrlutil.SpecChanged).
		Watches(&gatewayv1.HTTPRoute{}, ctrlutil.MapTo(r.gatewaysOfRoute), builder.WithPredicates(routeChangedForGateways)).
		Watches(&corev1.Namespace{}, ctrlutil.MapTo(r.allGateways), builder.WithPredicates(predicate.LabelChangedPredicate{})).
		Watches(&gatewayv1.ReferenceGrant{}, ctrlutil.MapTo(r.gatewaysOfGrant)).
		Watches(&gatewayv1.ReferenceGrant{}, ctrlutil.MapTo(r.gatewaysOfRoutesOfGrant)).
		WatchesRawSource(source.Kind(r.certificates.metadata, secretMetadata(), handler.TypedEnqueueRequestsFromMapFunc(r.gatewaysOfSecret), ctrlutil.NewVersion)).
		WatchesRawSource(source.Kind(r.services, serviceMetadata(), handler.TypedEnqueueRequestsFromMapFunc(r.gatewaysOfService), ctrlutil.CameOrWent)).
		WatchesRawSource(r.namespaceBytes.source()).
		Named("gateway"), r, r.gatewayOfObject)
}
