package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
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
	"github.com/gatewright/gatewright/internal/fairness"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/manifest"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/rollout"
	"github.com/gatewright/gatewright/internal/routes"
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
	// routeKinds are the route kinds the API server serves (servedRouteKinds).
	routeKinds []string
	// listenerSets: the API server serves ListenerSets (servesListenerSets).
	listenerSets bool
	// tables keep each Gateway's route table data and its routes' attachment between its
	// renders; the policies' judgements read the attachment too.
	tables *tableMemos
	// routePace spaces the renders of a Gateway that its routes' events ask for
	// (routeRenderSpacing).
	routePace ctrlutil.Pace
	// httpRoutes finds the HTTPRoutes that name a Gateway, uncopied.
	httpRoutes *routeParentIndex
}

// routeRenderSpacing is the least time between two renders of a Gateway that its routes'
// events start: thousands of routes created at once render a shared Gateway twice a
// second, each render taking all that came meanwhile, rather than once after another
// for as long as they come (each render of thousands of routes costs tens of
// milliseconds). A route edited alone is rendered at once.
const routeRenderSpacing = 500 * time.Millisecond

// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways/finalizers,verbs=update
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=listenersets,verbs=get;list;watch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=listenersets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=gatewright.dev,resources=gatewayclassconfigs;gatewayconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

func (r *GatewayReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	gw := &gatewayv1.Gateway{}
	if err := r.Get(ctx, req.NamespacedName, gw); err != nil {
		if apierrors.IsNotFound(err) {
			r.contested.wait(req, nil) // it waits for no name any more
			r.tables.forget(req.NamespacedName)
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
		r.tables.forget(req.NamespacedName)
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
		r.tables.forget(req.NamespacedName)
		return ctrl.Result{}, r.tearDown(ctx, gw, class, rec)
	}

	memo := r.tables.of(gw)
	g := r.gatherer(ctx)
	g.RouteLimits = r.routeLimits
	g.AttachMemos = func(*gatewayv1.Gateway) *snapshot.AttachMemo { return memo.attached }
	g.BackendMemos = func(*gatewayv1.Gateway) *snapshot.BackendMemo { return memo.backends }
	// The listeners are judged by what the revision the Gateway runs serves. When that
	// cannot be read, they are judged as a blueprint that says nothing of it would have
	// them, so that the status still lists them, and the error refuses the Gateway.
	serves, servesErr := g.Serves(ctx, gw, class, snapshot.Assigned(rec.TargetFor))
	judged, err := g.Listeners(ctx, gw, serves)
	if err != nil {
		return ctrl.Result{}, err
	}
	status := newGatewayStatus(gw, judged)
	if status.listenerSets, err = r.judgeListenerSets(ctx, g, gw, serves, judged); err != nil {
		return ctrl.Result{}, err
	}
	defer func() { err = errors.Join(err, r.patchStatus(ctx, gw, status)) }()
	if servesErr != nil {
		return status.fail(servesErr)
	}

	snap, err := r.gather(ctx, g, gw, class, judged, status.listenerSets, rec)
	if err != nil {
		return r.notApplied(ctx, rec, err, status.fail)
	}
	snap.Memo = memo.table
	if status.listenerSets != nil {
		snap.ListenerSets = status.listenerSets.verdicts
		status.listenerSets.routes = snap.Attached
	}
	status.accepted()
	status.attach(snap.Attached)
	if status.noValidListener() {
		return ctrl.Result{}, nil
	}

	res, err := r.translate(ctx, snap, rec, status)
	if err != nil {
		r.Recorder.Event(gw, "Warning", "RenderFailed", err.Error())
		return r.notApplied(ctx, rec, err, status.invalid)
	}
	out := res.Output
	size := fairness.RenderedBytes(out.Objects, res.Values.Values)
	if err := r.admitBytes(rec, size); err != nil {
		return r.notApplied(ctx, rec, err, status.overNamespaceBytes)
	}
	rec.RenderedBytes = size
	if err := r.legacy.AdoptGateway(ctx, gw, rec, snap.Values.Blueprint); err != nil {
		return ctrl.Result{}, err
	}
	if err := memo.refused.again(rec, out.Objects, time.Now()); err != nil {
		// Refused as it is a moment ago: said then, and no new event or apply now.
		if recordErr := r.Applier.RecordNotApplied(ctx, rec, "apply failed: "+err.Error()); recordErr != nil {
			return ctrl.Result{}, recordErr
		}
		return status.applyFailed(err)
	}
	start, first := time.Now(), !rec.Exists()
	applied, err := r.Applier.ApplyRecorded(ctx, rec, out.Objects, keepWaiting(out.Waiting))
	countApply(metrics.KindGateway, start, applied, err)
	if staleRecord(err) {
		status.unchanged()
		return ctrl.Result{}, err // retried by ctrlutil.RetryingConflicts; the status keeps its last verdict
	}
	memo.refused.remember(rec, out.Objects, err, time.Now())
	recordChanges(r.Recorder, gw, rec, first, applied)
	retry := r.contested.wait(req, refusedNames(err))
	if err != nil {
		r.Recorder.Event(gw, "Warning", "ApplyFailed", err.Error())
		logRefusedApply(ctx, err)
		// Retried or not, what this apply recorded of the routes it serves does not hold.
		if recordErr := r.Applier.RecordNotApplied(ctx, rec, "apply failed: "+err.Error()); recordErr != nil {
			return ctrl.Result{}, errors.Join(err, recordErr)
		}
		result, err := status.applyFailed(err)
		if retry > 0 {
			// Refused a name another owner holds: back when it is let go (rendered_watches.go),
			// which the watch of its kind sees.
			return ctrl.Result{RequeueAfter: retry}, r.watches.ensure(ctx, out.Objects)
		}
		return result, err
	}
	if err := r.watches.ensure(ctx, out.Objects); err != nil {
		return ctrl.Result{}, err
	}
	settled, more, err := settle(apply.GatewayOwner(gw), res, applied)
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

// judgeListenerSets judges the ListenerSets naming gw as their parent (from the index of
// their parents), on a class that serves what serves says; nil on an API server that
// serves none.
func (r *GatewayReconciler) judgeListenerSets(ctx context.Context, g *snapshot.Gatherer, gw *gatewayv1.Gateway, serves listeners.Serves, own []listeners.Status) (*gatewayListenerSets, error) {
	if !r.listenerSets {
		return nil, nil
	}
	items, err := listenerSetsOf(ctx, r.Client, gw)
	if err != nil {
		return nil, err
	}
	verdicts, err := g.ListenerSets(ctx, gw, serves, own, items)
	if err != nil {
		return nil, err
	}
	out := &gatewayListenerSets{list: items, items: make(map[listeners.SetRef]*gatewayv1.ListenerSet, len(items)), verdicts: verdicts}
	for i := range items {
		out.items[listeners.SetRef{Namespace: items[i].Namespace, Name: items[i].Name}] = &items[i]
	}
	return out, nil
}

// settle renders once more with the objects as this round's apply left them, when it
// created or changed any and a render may then see something else (it deleted some too,
// or translate.Result.AgainMayDiffer): the status template then reports what was just
// created, and Programmed says so, in this round's one status write rather than after
// the cache catches up (translate.Result.RenderAgain). When the new render has objects
// the apply did not (a template that waited for one of them may run now), it says so:
// they are applied in the next round, asked for at once, and the status stays as the
// first render made it.
func settle(owner apply.Owner, res *translate.Result, applied *apply.Result) (*render.Output, bool, error) {
	out := res.Output
	if len(applied.Changed) == 0 || (len(applied.Pruned) == 0 && !res.AgainMayDiffer(applied.ChangedTemplates)) {
		return out, false, nil
	}
	live := map[string][]*unstructured.Unstructured{}
	for _, obj := range applied.Live {
		template := manifest.Label(obj, gatewrightv1alpha1.LabelTemplate)
		live[template] = append(live[template], obj)
	}
	again, statusOnly, err := res.RenderAgain(live)
	if err != nil || statusOnly {
		return again, false, err
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
		rec.ReadsWhole = parsed.ReadsWhole("")
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
	// The routes read which of them the configuration holds, should a later render fail.
	rec.NotApplied = ""
	rec.Later(func(rec *apply.Record) { rec.ServedRoutes = apply.ServedRoutes(servedRoutes(res.Input)) })
	// Saved with the objects, so that readers of the Rendering see what they came from.
	return res, rec.Rendered(res.Values, snap.Class.Name, snap.Values.Blueprint, snap.Revision)
}

// notApplied reports err with report and, unless it is retried (report returns an
// error), records on the Gateway's record that its latest render was not applied:
// routes its configuration does not hold then say so.
func (r *GatewayReconciler) notApplied(ctx context.Context, rec *apply.Record, err error, report func(error) (ctrl.Result, error)) (ctrl.Result, error) {
	result, retried := report(err)
	if retried != nil {
		return result, retried
	}
	return result, r.Applier.RecordNotApplied(ctx, rec, err.Error())
}

// servedRoutes are the routes of every kind a render's configuration holds.
func servedRoutes(in render.Input) []metav1.Object {
	out := make([]metav1.Object, 0, len(in.HTTPRoutes)+len(in.OtherRoutes))
	for _, route := range in.HTTPRoutes {
		out = append(out, route)
	}
	for _, route := range in.OtherRoutes {
		out = append(out, route)
	}
	return out
}

// tearDown lets go of a Gateway that is being deleted or whose class is gone or another
// controller's: its Renderings are deleted, and their finalizer has the Rendering
// reconciler delete the objects. A Gateway whose class is gone says so first, so that
// nothing disappears from under a Gateway that still says Programmed. Every instance may
// do this when no instance implements the class: deletes are guarded by the owner's labels.
func (r *GatewayReconciler) tearDown(ctx context.Context, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, rec *apply.Record) error {
	var bp *gatewrightv1alpha1.GatewayClassBlueprint
	if r.shard.ownership(class) == ownedHere {
		bp, _ = r.gatherer(ctx).Blueprint(ctx, class) // without it, no cluster-scoped entry is adopted
	}
	if err := r.legacy.AdoptGateway(ctx, gw, rec, bp); err != nil {
		return err
	}
	if !rec.Exists() {
		return nil
	}
	if class == nil && gw.DeletionTimestamp.IsZero() {
		// No class, no blueprint: judged as one that says nothing of what it serves.
		status := newGatewayStatus(gw, listeners.Evaluate(listeners.Serves{}, gw.Spec.Listeners, nil))
		status.notAccepted(gatewayv1.GatewayReasonInvalid, fmt.Sprintf("GatewayClass %s not found; the objects rendered for this Gateway are deleted", gw.Spec.GatewayClassName))
		if err := r.patchStatus(ctx, gw, status); err != nil {
			return err
		}
	}
	log.FromContext(ctx).Info("deleting the objects rendered for the Gateway", "objects", len(rec.Inventory))
	return r.Applier.DeleteRecord(ctx, rec)
}

func (r *GatewayReconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr)
	if r.listenerSets {
		b = b.Watches(&gatewayv1.ListenerSet{}, ctrlutil.MapTo(r.gatewayOfListenerSet), ctrlutil.SpecChanged).
			Watches(&gatewayv1.ReferenceGrant{}, ctrlutil.MapTo(r.gatewaysOfListenerSetGrant)).
			WatchesRawSource(source.Kind(r.certificates.metadata, secretMetadata(), handler.TypedEnqueueRequestsFromMapFunc(r.gatewaysOfListenerSetSecret), ctrlutil.NewVersion))
	}
	for _, kind := range r.routeKinds {
		b = b.Watches(routes.New(kind), ctrlutil.Coalesced(r.gatewaysOfRoute, r.routePace.Wait), builder.WithPredicates(routeChangedForGateways))
	}
	return r.setUp(mgr, b.
		For(&gatewayv1.Gateway{}, ctrlutil.SpecChanged).
		Watches(&gatewayv1.GatewayClass{}, ctrlutil.MapTo(r.gatewaysOfClass), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, ctrlutil.MapTo(r.gatewaysOfBlueprint), builder.WithPredicates(blueprintComesOrGoes)).
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, ctrlutil.MapTo(r.gatewaysOnCurrentRevision), builder.WithPredicates(currentRevisionMoved)).
		Watches(&gatewrightv1alpha1.Rendering{}, ctrlutil.MapTo(r.gatewayOfObject), targetRevisionChanged).
		Watches(&gatewrightv1alpha1.Rendering{}, ctrlutil.MapTo(r.gatewayOfRouteRecord), routeRefusalChanged).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, ctrlutil.MapTo(r.gatewaysOfClassConfig), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayConfig{}, ctrlutil.MapTo(r.gatewaysInNamespaceOf), ctrlutil.SpecChanged).
		Watches(&corev1.Namespace{}, ctrlutil.MapTo(r.allGateways), builder.WithPredicates(predicate.LabelChangedPredicate{})).
		Watches(&gatewayv1.ReferenceGrant{}, ctrlutil.MapTo(r.gatewaysOfGrant)).
		Watches(&gatewayv1.ReferenceGrant{}, ctrlutil.MapTo(r.gatewaysOfRoutesOfGrant)).
		WatchesRawSource(source.Kind(r.certificates.metadata, secretMetadata(), handler.TypedEnqueueRequestsFromMapFunc(r.gatewaysOfSecret), ctrlutil.NewVersion)).
		WatchesRawSource(source.Kind(r.services, serviceMetadata(), handler.TypedEnqueueRequestsFromMapFunc(r.gatewaysOfService), ctrlutil.CameOrWent)).
		WatchesRawSource(r.namespaceBytes.Source(apply.KindGateway)).
		Named("gateway"), r, r.gatewayOfObject)
}

// gather reads what gw's values and templates are computed from: the blueprint at the
// revision gw runs (the one its record says the blueprint's rollout assigned it, if any;
// one another blueprint's assigned counts for nothing), the policies that may apply
// and the routes attached (from the index of their parents), their backendRefs resolved,
// and those their own templates refused (from their records). The record's next write
// computes the fingerprint of what of these gw's tenants control (rollout.TenantInputs)
// and keeps it with the render, so a rollout can tell a Gateway its tenant changed from
// one the revision broke.
func (r *GatewayReconciler) gather(ctx context.Context, g *snapshot.Gatherer, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, judged []listeners.Status, sets *gatewayListenerSets, rec *apply.Record) (*translate.Gateway, error) {
	candidates, err := r.httpRoutes.httpRoutesOf(gw)
	if err != nil {
		return nil, err
	}
	// The tenants' fingerprint counts the routes that name gw, as the rollout lists them.
	naming := candidates
	var othersNaming []routes.Route
	// Routes attach through the Gateway's attached ListenerSets too.
	attached := sets.attached()
	if len(attached) > 0 {
		onSets, err := routesOnListenerSets(ctx, r.Client, routes.KindHTTPRoute, attached)
		if err != nil {
			return nil, err
		}
		have := make(map[types.NamespacedName]bool, len(candidates))
		for _, route := range candidates {
			have[client.ObjectKeyFromObject(route)] = true
		}
		for _, route := range onSets {
			if !have[client.ObjectKeyFromObject(route)] {
				candidates = append(candidates, route.(*gatewayv1.HTTPRoute))
			}
		}
	}
	var others []routes.Route
	for _, kind := range r.routeKinds {
		if kind == routes.KindHTTPRoute {
			continue
		}
		named, err := routesOf(ctx, r.Client, kind, gw)
		if err != nil {
			return nil, err
		}
		othersNaming = append(othersNaming, named...)
		onSets, err := routesOnListenerSets(ctx, r.Client, kind, attached)
		if err != nil {
			return nil, err
		}
		for _, route := range onSets {
			if !slices.ContainsFunc(named, func(n routes.Route) bool {
				return n.GetNamespace() == route.GetNamespace() && n.GetName() == route.GetName()
			}) {
				named = append(named, route)
			}
		}
		others = append(others, named...)
	}
	opts := []snapshot.Option{snapshot.Among(candidates), snapshot.AmongOthers(others), snapshot.Judged(judged), snapshot.Assigned(rec.TargetFor)}
	if sets != nil {
		opts = append(opts, snapshot.OnListenerSets(sets.list, sets.verdicts))
	}
	snap, err := g.Gateway(ctx, gw, class, opts...)
	if err != nil {
		return nil, err
	}
	rec.Later(func(rec *apply.Record) {
		rec.TenantInputs = rollout.TenantInputs(gw, snap.Values.GatewayConfigs, naming, othersNaming)
	})
	return snap, nil
}
