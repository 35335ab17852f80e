package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// HTTPRouteReconciler renders the route templates for each HTTPRoute on each parent
// Gateway of Gatewright's classes, and writes Gatewright's RouteParentStatus entries.
type HTTPRouteReconciler struct {
	programmer
}

// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=referencegrants,verbs=get;list;watch

func (r *HTTPRouteReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	route := &gatewayv1.HTTPRoute{}
	if err := r.Get(ctx, req.NamespacedName, route); err != nil {
		if apierrors.IsNotFound(err) {
			r.contested.wait(req, nil) // it waits for no name any more
		}
		// A route that is gone leaves its Renderings to the Rendering reconciler.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var parents []routeParent
	var err error
	if route.DeletionTimestamp.IsZero() {
		if parents, err = r.parents(ctx, route); err != nil {
			return ctrl.Result{}, err
		}
	}
	elsewhere := &gatewaysElsewhere{reader: r.Client, shard: r.shard, known: map[string]bool{}}
	records, err := r.Applier.LoadRouteRecords(ctx, route)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.adoptLegacy(ctx, route, records, parents, elsewhere); err != nil {
		return ctrl.Result{}, err
	}

	var backends attach.Resolution
	if len(parents) > 0 {
		if backends, err = snapshot.BackendRefs(ctx, r.Client, route, serviceExists(ctx, r.services)); err != nil {
			return ctrl.Result{}, err
		}
	}
	statuses := map[string][]gatewayv1.RouteParentStatus{}
	var errs []error
	var result ctrl.Result
	var refused []objectName
	for _, parent := range parents {
		rec := records[parent.key()]
		if rec == nil {
			rec = apply.NewRecord(apply.RouteOwner(route, parent.gateway.Namespace, parent.gateway.Name))
		}
		status, again, err := r.reconcileParent(ctx, route, parent, rec, backends)
		statuses[parent.key()] = status
		if names := refusedNames(err); names != nil {
			refused = append(refused, names...)
			err = nil // retried when the name is let go, or after the requeue below
		}
		errs = append(errs, err)
		if again {
			// The next round reads this one's objects from the cache, a few milliseconds behind.
			result.RequeueAfter = ctrlutil.StaleCacheRetry
		}
	}
	if retry := r.contested.wait(req, refused); retry > 0 && result.RequeueAfter == 0 {
		result.RequeueAfter = retry
	}
	// Parents the route left, or that left Gatewright: their objects go. The objects on
	// another shard's Gateways are that shard's to keep or delete.
	for key, rec := range records {
		if _, still := statuses[key]; still {
			continue
		}
		theirs, err := elsewhere.has(ctx, key)
		if err == nil && !theirs {
			err = r.Applier.DeleteRecord(ctx, rec)
		}
		errs = append(errs, err)
	}
	return result, errors.Join(append(errs, r.patchStatus(ctx, route, statuses, elsewhere))...)
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
	gateways, err := snapshot.ParentGateways(ctx, r.Client, route)
	if err != nil {
		return nil, err
	}
	var parents []routeParent
	for _, gw := range gateways {
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
// returns the status of each parentRef naming it, and whether to render again: when
// the apply created or changed objects that a template waits for or may read, no event
// of them brings the route back (they are Gatewright's own writes).
func (r *HTTPRouteReconciler) reconcileParent(ctx context.Context, route *gatewayv1.HTTPRoute, parent routeParent, rec *apply.Record, backends attach.Resolution) ([]gatewayv1.RouteParentStatus, bool, error) {
	namespaceLabels, err := snapshot.NamespaceLabels(ctx, r.Client, route.Namespace)
	if err != nil {
		return nil, false, err
	}
	statuses := make([]gatewayv1.RouteParentStatus, len(parent.refs))
	attached := false
	for i, ref := range parent.refs {
		result := attach.Attach(parent.gateway, route, ref, namespaceLabels)
		statuses[i] = routeParentStatus(route, ref, result, backends)
		attached = attached || result.Attached()
	}
	if rec.Deleting {
		return statuses, false, nil // the end of the clean-up brings the route back
	}
	if !attached {
		return statuses, false, r.Applier.DeleteRecord(ctx, rec)
	}
	cutoff, err := apply.RouteCutoff(ctx, r.Client, parent.gateway)
	if err != nil {
		return nil, false, err
	}
	if cut, ok := translate.RouteCut(cutoff, parent.key(), route); ok {
		// Left out of the Gateway's configuration for a Gateway-wide bound: refused here
		// alone, and its own objects go with it.
		for i := range statuses {
			if meta.IsStatusConditionTrue(statuses[i].Conditions, string(gatewayv1.RouteConditionAccepted)) {
				setRouteCondition(&statuses[i], route, gatewayv1.RouteConditionAccepted, false, gatewayv1.RouteConditionReason(cut.Reason), cut.Message)
			}
		}
		return statuses, false, r.Applier.DeleteRecord(ctx, rec)
	}

	res, err := r.translate(ctx, translate.Route{Route: route, BackendRefs: backends.BackendRefs}, parent, rec)
	if errors.Is(err, snapshot.ErrNoRouteTemplate) {
		// The revision the Gateway runs renders nothing for routes: the route has no
		// values of its own, its Gateway's configuration serves it, and there is nothing
		// to record. What an earlier revision's route templates made goes with the record.
		return statuses, false, r.Applier.DeleteRecord(ctx, rec)
	}
	if res != nil && res.Values != nil {
		for i := range statuses {
			setRouteAffected(&statuses[i], route, res.Values.Policies)
		}
	}
	var out *render.Output
	if res != nil {
		out = res.Output
	}
	failure := "RenderFailed"
	if err == nil {
		failure = "ApplyFailed"
		var applied *apply.Result
		start, first := time.Now(), !rec.Exists()
		rec.RouteRefused = "" // its templates took it: the Gateway serves it
		applied, err = r.Applier.ApplyRecorded(ctx, rec, out.Objects, keepWaiting(out.Waiting))
		countApply(metrics.KindHTTPRoute, start, applied, err)
		recordChanges(r.Recorder, route, rec, first, applied)
		if staleRecord(err) {
			return statuses, false, err // retried by ctrlutil.RetryingConflicts; the status keeps its last verdict
		}
		if err == nil {
			again := len(applied.Changed) > 0 && res.Blueprint.RouteObjectsMayChange(out)
			return statuses, again, r.watches.ensure(ctx, out.Objects)
		}
	}
	r.Recorder.Event(route, "Warning", failure, err.Error())
	if renderStopped(err) {
		return statuses, false, err // retried; meanwhile the route says where it attaches
	}
	// The pipeline's verdict, so that what is written is what gatewright diff predicts.
	accepted := (&translate.Result{Err: err}).RouteAccepted(parent.key())
	for i := range statuses {
		setRouteCondition(&statuses[i], route, gatewayv1.RouteConditionAccepted, accepted.OK, gatewayv1.RouteConditionReason(accepted.Reason), accepted.Message)
	}
	if refusedNames(err) != nil {
		// Refused a name another owner holds: Reconcile waits for it to be let go
		// (contested.go), which the watch of its kind sees.
		if watchErr := r.watches.ensure(ctx, out.Objects); watchErr != nil {
			return statuses, false, watchErr
		}
		return statuses, false, err
	}
	if refusal, refused := (&translate.Result{Err: err}).RouteRefusal(parent.key()); refused && failure == "RenderFailed" {
		// Refused by its own templates: the Gateway leaves it out of its configuration,
		// so that what says Accepted=False is not served. What was applied stays, and
		// nothing is retried until the input changes.
		rec.RouteRefused = refusal
		return statuses, false, r.Applier.SaveRecord(ctx, rec, rec.Inventory)
	}
	if isInputError(err) {
		logRefusedApply(ctx, err)
		err = nil // nothing to retry until the input changes
	}
	return statuses, false, err
}

// translate computes the route's values on parent and renders its templates, with the
// live objects of its inventory there as .Resources.
func (r *HTTPRouteReconciler) translate(ctx context.Context, route translate.Route, parent routeParent, rec *apply.Record) (_ *translate.Result, err error) {
	snap, err := snapshot.ForValues(ctx, r.Client, r.ControllerNamespace, parent.gateway, parent.class, route.Route)
	if err != nil {
		return nil, err
	}
	target, err := apply.TargetRevision(ctx, r.Client, parent.gateway, snap.Values.Blueprint.Name)
	if err != nil {
		return nil, err
	}
	if err := snapshot.AtRevision(ctx, r.Client, snap, target); err != nil {
		return nil, err // the revision the parent Gateway runs
	}
	if snap.Values.Blueprint.Spec.HTTPRouteTemplate == nil {
		return nil, fmt.Errorf("GatewayClassBlueprint %s: %w", snap.Values.Blueprint.Name, snapshot.ErrNoRouteTemplate)
	}
	defer func() { countRender(metrics.KindHTTPRoute, snap.Values.Blueprint.Name, err) }()
	if snap.Listeners, err = snapshot.Listeners(ctx, r.Client, parent.gateway, r.certificates.check(ctx)); err != nil {
		return nil, err
	}
	// The objects that templates or readyWhen read are read whole; the cache holds the
	// others without their content. A blueprint that does not parse reads none: its
	// error comes from the translation.
	if parsed, err := r.Blueprints.Get(snap.Values.Blueprint); err == nil {
		rec.ReadsWhole = parsed.ReadsWhole(true)
	}
	live, err := r.Applier.LiveRecorded(ctx, rec)
	if err != nil {
		return nil, err
	}
	res := snap.TranslateRoute(r.Blueprints, route, translate.Live{Objects: live, IsReady: apply.Readiness, IsNamespaced: r.scopes.IsNamespaced})
	observeTranslation(metrics.KindHTTPRoute, res)
	if res.Err != nil {
		return res, res.Err
	}
	// The applier judges the objects as the render did: by readyWhen, else kstatus.
	rec.Readiness = res.Input.IsReady
	// Saved with the objects, so that readers of the Rendering see what they came from.
	return res, rec.Rendered(res.Values, parent.class.Name, snap.Values.Blueprint, snap.Revision)
}

func (r *HTTPRouteReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return r.setUp(mgr, ctrl.NewControllerManagedBy(mgr).
		For(&gatewayv1.HTTPRoute{}, ctrlutil.SpecChanged).
		Watches(&gatewayv1.Gateway{}, ctrlutil.MapTo(r.routesOfGateway), builder.WithPredicates(gatewayChangedForRoutes)).
		Watches(&gatewayv1.GatewayClass{}, ctrlutil.MapTo(r.routesOfClass), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, ctrlutil.MapTo(r.routesOfBlueprint), blueprintRunsOtherwise).
		Watches(&gatewrightv1alpha1.Rendering{}, ctrlutil.MapTo(r.routesOfGatewayRendering), gatewayHeadChanged).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, ctrlutil.MapTo(r.routesNearPolicy), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayConfig{}, ctrlutil.MapTo(r.routesNearPolicy), ctrlutil.SpecChanged).
		Watches(&gatewayv1.ReferenceGrant{}, ctrlutil.MapTo(r.routesOfGrant)).
		WatchesRawSource(source.Kind(r.services, serviceMetadata(), handler.TypedEnqueueRequestsFromMapFunc(r.routesOfService), ctrlutil.CameOrWent)).
		Named("httproute"), r, r.routeOfObject)
}
