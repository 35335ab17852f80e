package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
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
	"github.com/gatewright/gatewright/internal/fairness"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// RouteReconciler writes Gatewright's RouteParentStatus entries on each route of one
// kind (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute) for each parent Gateway of
// Gatewright's classes: where it attaches, whether its backendRefs resolve and whether
// the configuration its Gateway applied holds it; and renders and applies its
// blueprint's route templates of its kind. The same code serves every kind.
type RouteReconciler struct {
	programmer
	// Kind is the route kind reconciled.
	Kind string
	// listenerSets: the API server serves ListenerSets (servesListenerSets).
	listenerSets bool
	// kindConflicts: the API server serves both HTTPRoutes and GRPCRoutes, of which the
	// newer of two sharing a hostname on a listener is refused (route_kind_conflicts.go).
	kindConflicts bool
}

// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=grpcroutes;tlsroutes;tcproutes;udproutes,verbs=get;list;watch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes/status;grpcroutes/status;tlsroutes/status;tcproutes/status;udproutes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes/finalizers;grpcroutes/finalizers;tlsroutes/finalizers;tcproutes/finalizers;udproutes/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=referencegrants,verbs=get;list;watch

func (r *RouteReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	route := routes.New(r.Kind)
	if err := r.Get(ctx, req.NamespacedName, route); err != nil {
		if apierrors.IsNotFound(err) {
			r.contested.wait(req, nil) // it waits for no name any more
		}
		// A route that is gone leaves its Renderings to the Rendering reconciler.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	g := r.gatherer(ctx)
	var parents []routeParent
	var err error
	if route.GetDeletionTimestamp().IsZero() {
		if parents, err = r.parents(ctx, g, route); err != nil {
			return ctrl.Result{}, err
		}
	}
	elsewhere := &gatewaysElsewhere{reader: r.Client, shard: r.shard, known: map[string]bool{}}
	records, err := r.records(ctx, g, route, parents, elsewhere)
	if err != nil {
		return ctrl.Result{}, err
	}

	var backends attach.Resolution
	if len(parents) > 0 {
		if backends, err = g.BackendRefs(ctx, route); err != nil {
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
			rec = apply.NewRecord(apply.RouteOwner(r.Kind, route, parent.gateway.Namespace, parent.gateway.Name))
		}
		status, again, err := r.reconcileParent(ctx, g, route, parent, rec, backends)
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

// records reads the Renderings of what route templates made for route, by parent. The
// records older than Renderings, which only HTTPRoutes have, are adopted.
func (r *RouteReconciler) records(ctx context.Context, g *snapshot.Gatherer, route routes.Route, parents []routeParent, elsewhere *gatewaysElsewhere) (map[string]*apply.Record, error) {
	records, err := r.Applier.LoadRouteRecords(ctx, r.Kind, route)
	if err != nil {
		return nil, err
	}
	httpRoute, ok := route.(*gatewayv1.HTTPRoute)
	if !ok {
		return records, nil
	}
	blueprints := func() map[string]*gatewrightv1alpha1.GatewayClassBlueprint {
		out := map[string]*gatewrightv1alpha1.GatewayClassBlueprint{}
		for _, parent := range parents {
			if bp, err := g.Blueprint(ctx, parent.class); err == nil {
				out[parent.key()] = bp
			}
		}
		return out
	}
	return records, r.legacy.AdoptRoute(ctx, httpRoute, records, blueprints, elsewhere.has)
}

// routeParent is a Gateway of this shard's classes that the route names, in refs: its
// parentRefs naming the Gateway, or one of the Gateway's ListenerSets.
type routeParent struct {
	gateway *gatewayv1.Gateway
	class   *gatewayv1.GatewayClass
	refs    []gatewayv1.ParentReference
}

func (p routeParent) key() string { return p.gateway.Namespace + "/" + p.gateway.Name }

// parents finds the Gateways of this shard's classes among the route's parentRefs, and
// the parents of the ListenerSets among them.
func (r *RouteReconciler) parents(ctx context.Context, g *snapshot.Gatherer, route routes.Route) ([]routeParent, error) {
	gateways, err := g.ParentGateways(ctx, route)
	if err != nil {
		return nil, err
	}
	onSets := map[types.NamespacedName][]gatewayv1.ParentReference{}
	if r.listenerSets {
		for _, ref := range routes.ParentRefs(route) {
			key, isListenerSet := attach.ParentListenerSet(route.GetNamespace(), ref)
			if !isListenerSet {
				continue
			}
			ls := &gatewayv1.ListenerSet{}
			if err := r.Get(ctx, key, ls); err != nil {
				if apierrors.IsNotFound(err) {
					continue // no parent: no status of Gatewright's
				}
				return nil, err
			}
			parent, isGateway := attach.ListenerSetParent(ls)
			if !isGateway {
				continue
			}
			if !slices.ContainsFunc(gateways, func(gw *gatewayv1.Gateway) bool { return client.ObjectKeyFromObject(gw) == parent }) {
				gw := &gatewayv1.Gateway{}
				if err := r.Get(ctx, parent, gw); err != nil {
					if apierrors.IsNotFound(err) {
						continue
					}
					return nil, err
				}
				gateways = append(gateways, gw)
			}
			onSets[parent] = append(onSets[parent], ref)
		}
	}
	var parents []routeParent
	for _, gw := range gateways {
		refs := append(attach.ParentRefsTo(route, gw), onSets[client.ObjectKeyFromObject(gw)]...)
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

// onListenerSet is where ref, a parentRef of route naming a ListenerSet of parent's
// Gateway, attaches, the ListenerSet judged among its siblings as the Gateway's round
// judges it (judge reads them once per parent).
func (r *RouteReconciler) onListenerSet(route routes.Route, ref gatewayv1.ParentReference, serves listeners.Serves, namespaceLabels map[string]string, judge func() ([]gatewayv1.ListenerSet, []listeners.SetVerdict, error)) (attach.Result, error) {
	items, verdicts, err := judge()
	if err != nil {
		return attach.Result{}, err
	}
	key, _ := attach.ParentListenerSet(route.GetNamespace(), ref)
	for _, v := range verdicts {
		if v.Ref.Namespace != key.Namespace || v.Ref.Name != key.Name {
			continue
		}
		for i := range items {
			if items[i].Namespace == key.Namespace && items[i].Name == key.Name {
				return attach.AttachToListenerSet(&items[i], v, serves, attach.RouteOf(route), ref, namespaceLabels), nil
			}
		}
	}
	return attach.Result{Reason: gatewayv1.RouteReasonNoMatchingParent, Message: "ListenerSet " + key.String() + " names another parent"}, nil
}

// reconcileParent renders and applies the route's objects on one parent Gateway and
// returns the status of each parentRef naming it, and whether to render again: when
// the apply created or changed objects that a template waits for or may read, no event
// of them brings the route back (they are Gatewright's own writes). A route says
// Accepted=True only when the configuration its Gateway applied holds it
// (apply.Serves); its own objects are still rendered, since its templates may be what
// refuses it and so lets the Gateway's next render through.
func (r *RouteReconciler) reconcileParent(ctx context.Context, g *snapshot.Gatherer, route routes.Route, parent routeParent, rec *apply.Record, backends attach.Resolution) ([]gatewayv1.RouteParentStatus, bool, error) {
	head, err := apply.GatewayHead(ctx, r.Client, parent.gateway)
	if err != nil {
		return nil, false, err
	}
	statuses, again, err := r.programParent(ctx, g, route, parent, head, rec, backends)
	if served, why := apply.Serves(head, parent.key(), route); !served {
		for i := range statuses {
			if meta.IsStatusConditionTrue(statuses[i].Conditions, string(gatewayv1.RouteConditionAccepted)) {
				setRouteCondition(&statuses[i], route, gatewayv1.RouteConditionAccepted, false, ReasonConfigurationNotApplied, why)
			}
		}
	}
	return statuses, again, err
}

// ReasonConfigurationNotApplied is the reason of Accepted=False on a route its Gateway
// would serve but does not yet: the Gateway applied no configuration, or not its latest.
const ReasonConfigurationNotApplied = "ConfigurationNotApplied"

// programParent is reconcileParent but for what the Gateway serves; head is part 0 of
// the Gateway's record, nil when it has none.
func (r *RouteReconciler) programParent(ctx context.Context, g *snapshot.Gatherer, route routes.Route, parent routeParent, head *gatewrightv1alpha1.Rendering, rec *apply.Record, backends attach.Resolution) ([]gatewayv1.RouteParentStatus, bool, error) {
	namespaceLabels, err := g.NamespaceLabels(ctx, route.GetNamespace())
	if err != nil {
		return nil, false, err
	}
	// The route attaches by what the revision its Gateway runs serves. A blueprint that
	// cannot be used leaves it attaching as one that says nothing of it would, and the
	// translation below refuses the route for that error.
	serves, err := g.Serves(ctx, parent.gateway, parent.class)
	if err != nil && !(&translate.Result{Err: err}).Refused() {
		return nil, false, err
	}
	var items []gatewayv1.ListenerSet
	var verdicts []listeners.SetVerdict
	judged := false
	judge := func() ([]gatewayv1.ListenerSet, []listeners.SetVerdict, error) {
		if judged {
			return items, verdicts, nil
		}
		own, err := g.Listeners(ctx, parent.gateway, serves)
		if err != nil {
			return nil, nil, err
		}
		if items, err = listenerSetsOf(ctx, r.Client, parent.gateway); err != nil {
			return nil, nil, err
		}
		verdicts, err = g.ListenerSets(ctx, parent.gateway, serves, own, items)
		judged = err == nil
		return items, verdicts, err
	}
	statuses := make([]gatewayv1.RouteParentStatus, len(parent.refs))
	attached := false
	for i, ref := range parent.refs {
		result := attach.Attach(parent.gateway, serves, attach.RouteOf(route), ref, namespaceLabels)
		if _, isListenerSet := attach.ParentListenerSet(route.GetNamespace(), ref); isListenerSet {
			if result, err = r.onListenerSet(route, ref, serves, namespaceLabels, judge); err != nil {
				return nil, false, err
			}
		}
		statuses[i] = routeParentStatus(route, ref, result, backends)
		attached = attached || result.Attached()
	}
	if rec.Deleting {
		return statuses, false, nil // the end of the clean-up brings the route back
	}
	if !attached {
		return statuses, false, r.Applier.DeleteRecord(ctx, rec)
	}
	var cutoff *gatewrightv1alpha1.RouteCutoff
	if head != nil {
		cutoff = head.RouteCutoff
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
	conflict, err := r.kindConflict(ctx, g, route, parent, serves, cutoff, judge)
	if err != nil {
		return nil, false, err
	}
	if conflict != nil {
		// Left out of the Gateway's configuration for an older route of the other kind
		// sharing a hostname: refused here as its table refuses it, and its own objects go.
		for i := range statuses {
			if meta.IsStatusConditionTrue(statuses[i].Conditions, string(gatewayv1.RouteConditionAccepted)) {
				setRouteCondition(&statuses[i], route, gatewayv1.RouteConditionAccepted, false, gatewayv1.RouteConditionReason(conflict.Reason), conflict.Message)
			}
		}
		return statuses, false, r.Applier.DeleteRecord(ctx, rec)
	}
	snap, res, err := r.translate(ctx, g, translate.Route{Route: route, BackendRefs: backends.BackendRefs}, parent, rec)
	if err == nil {
		err = r.record(rec, parent, snap, res)
	}
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
	var refusal overNamespaceBytes
	if errors.As(err, &refusal) {
		return statuses, false, r.refuseOverNamespaceBytes(ctx, route, rec, statuses, refusal)
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
		countApply(r.metricsKind(), start, applied, err)
		if staleRecord(err) {
			return statuses, false, err // retried by ctrlutil.RetryingConflicts; the status keeps its last verdict
		}
		recordChanges(r.Recorder, route, rec, first, applied)
		if err == nil {
			again := len(applied.Changed) > 0 && res.Blueprint.RouteObjectsMayChange(r.Kind, out)
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
		// (rendered_watches.go), which the watch of its kind sees.
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

// overNamespaceBytes is a route's render refused for its namespace's sum of bytes.
type overNamespaceBytes struct{ error }

// refuseOverNamespaceBytes refuses the route on its parent because its render would
// take its namespace's Gateways and routes past their bound: the route, not its
// Gateway, says so, and the Gateway leaves it out of its configuration, so that what
// says Accepted=False is not served. What was applied stays; room made in the namespace
// brings the route back (fairness.NamespaceBytes).
func (r *RouteReconciler) refuseOverNamespaceBytes(ctx context.Context, route routes.Route, rec *apply.Record, statuses []gatewayv1.RouteParentStatus, refusal overNamespaceBytes) error {
	message := refusal.Error()
	r.Recorder.Event(route, "Warning", ReasonNamespaceBytes, message)
	for i := range statuses {
		if meta.IsStatusConditionTrue(statuses[i].Conditions, string(gatewayv1.RouteConditionAccepted)) {
			setRouteCondition(&statuses[i], route, gatewayv1.RouteConditionAccepted, false, ReasonNamespaceBytes, message)
		}
	}
	rec.RouteRefused = message
	return r.Applier.SaveRecord(ctx, rec, rec.Inventory)
}

// translate computes the route's values on parent and renders its templates, with the
// live objects of its inventory there as .Resources.
func (r *RouteReconciler) translate(ctx context.Context, g *snapshot.Gatherer, route translate.Route, parent routeParent, rec *apply.Record) (snap *translate.Gateway, _ *translate.Result, err error) {
	snap, err = g.Route(ctx, route.Route, parent.gateway, parent.class)
	if err != nil {
		return nil, nil, err
	}
	if snap.Values.Blueprint.Spec.RouteTemplateOf(r.Kind) == nil {
		return nil, nil, fmt.Errorf("GatewayClassBlueprint %s: %w", snap.Values.Blueprint.Name, snapshot.ErrNoRouteTemplate)
	}
	defer func() { countRender(r.metricsKind(), snap.Values.Blueprint.Name, err) }()
	if snap.Listeners, err = g.Listeners(ctx, parent.gateway, translate.Serves(&snap.Values.Blueprint.Spec)); err != nil {
		return nil, nil, err
	}
	// The objects that templates or readyWhen read are read whole; the cache holds the
	// others without their content. A blueprint that does not parse reads none: its
	// error comes from the translation.
	if parsed, err := r.Blueprints.Get(snap.Values.Blueprint); err == nil {
		rec.ReadsWhole = parsed.ReadsWhole(r.Kind)
	}
	live, err := r.Applier.LiveRecorded(ctx, rec)
	if err != nil {
		return nil, nil, err
	}
	res := snap.TranslateRoute(r.Blueprints, route, translate.Live{Objects: live, IsReady: apply.Readiness, IsNamespaced: r.scopes.IsNamespaced})
	observeTranslation(r.metricsKind(), res)
	return snap, res, res.Err
}

// record sets on rec what the render res of snap is about to apply: its size, once the
// route's namespace admits it (else overNamespaceBytes, with rec as it was read, so
// that a refusal saves it unchanged), and the values and revision it came from.
func (r *RouteReconciler) record(rec *apply.Record, parent routeParent, snap *translate.Gateway, res *translate.Result) error {
	size := fairness.RenderedBytes(res.Output.Objects, res.Values.Values)
	if err := r.admitBytes(rec, size); err != nil {
		return overNamespaceBytes{err}
	}
	rec.RenderedBytes = size
	// The applier judges the objects as the render did: by readyWhen, else kstatus.
	rec.Readiness = res.Input.IsReady
	// Saved with the objects, so that readers of the Rendering see what they came from.
	return rec.Rendered(res.Values, parent.class.Name, snap.Values.Blueprint, snap.Revision)
}

func (r *RouteReconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr)
	if r.listenerSets {
		b = b.Watches(&gatewayv1.ListenerSet{}, ctrlutil.MapTo(r.routesOfListenerSet))
	}
	if other := r.otherConflictingKind(); other != "" {
		b = b.Watches(routes.New(other), ctrlutil.MapTo(r.routesBesideOtherKind), ctrlutil.SpecChanged).
			Watches(&gatewrightv1alpha1.Rendering{}, ctrlutil.MapTo(r.routesOfRecordsGateway), otherKindRefusedChanged(other))
	}
	// A route's templates render with its values, which policies set, and their objects
	// count in its namespace's bytes.
	b = b.WatchesRawSource(r.namespaceBytes.Source(r.Kind)).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, ctrlutil.MapTo(r.routesNearPolicy), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayConfig{}, ctrlutil.MapTo(r.routesNearPolicy), ctrlutil.SpecChanged)
	return r.setUp(mgr, b.
		For(routes.New(r.Kind), ctrlutil.SpecChanged).
		Watches(&gatewayv1.Gateway{}, ctrlutil.MapTo(r.routesOfGateway), builder.WithPredicates(gatewayChangedForRoutes)).
		Watches(&gatewayv1.GatewayClass{}, ctrlutil.MapTo(r.routesOfClass), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, ctrlutil.MapTo(r.routesOfBlueprint), blueprintRunsOtherwise).
		Watches(&gatewrightv1alpha1.Rendering{}, ctrlutil.MapTo(r.routesOfGatewayRendering), gatewayHeadChanged).
		Watches(&gatewayv1.ReferenceGrant{}, ctrlutil.MapTo(r.routesOfGrant)).
		WatchesRawSource(source.Kind(r.services, serviceMetadata(), handler.TypedEnqueueRequestsFromMapFunc(r.routesOfService), ctrlutil.CameOrWent)).
		Named(strings.ToLower(r.Kind)), r, r.routeOfObject)
}

// metricsKind is the kind label of the routes reconciled.
func (r *RouteReconciler) metricsKind() string { return metrics.KindOfRoute(r.Kind) }
