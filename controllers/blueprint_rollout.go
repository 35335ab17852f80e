package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/rollout"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/snapshot"
)

// rolloutPoll is how often a blueprint whose wave waits on its gate looks at the wave's
// health again. Polling the cache costs no request; watching every Gateway's and route's
// status for every blueprint would wake the blueprint on each of a fleet's status writes.
const rolloutPoll = 2 * time.Second

// stepRollout advances bp's rollout by one step (internal/rollout) over the Gateways of its
// classes, and sets the status's rollout, currentRevision and RolloutHeld condition. The
// caller writes the status first, with optimistic concurrency, then makes the
// assignments: the status is the commit point, so a controller killed in between, or a
// new leader, steps the written status again and makes the same assignments.
func (r *BlueprintReconciler) stepRollout(ctx context.Context, bp *gatewrightv1alpha1.GatewayClassBlueprint, gateways []gatewayv1.Gateway, records map[client.ObjectKey]*gatewrightv1alpha1.Rendering) (rollout.Result, error) {
	cfg := rollout.ConfigOf(bp)
	stable := bp.Status.CurrentRevision
	judging := active(bp.Status.Rollout) || bp.Status.TargetRevision != stable
	members, err := r.members(ctx, bp.Name, cfg, stable, judging, gateways, records)
	if err != nil {
		return rollout.Result{}, err
	}
	step := rollout.Step(rollout.Reopened(bp.Status.Rollout, cfg), cfg, rollout.Observation{
		Stable: stable, Target: bp.Status.TargetRevision, Members: members, Now: time.Now(),
	})
	bp.Status.Rollout, bp.Status.CurrentRevision = step.Status, step.Stable
	setRolloutHeld(bp, cfg.Unreadable)
	if active(step.Status) && (step.RequeueAfter <= 0 || step.RequeueAfter > rolloutPoll) {
		step.RequeueAfter = rolloutPoll
	}
	return step, nil
}

// setRolloutHeld says on bp that its rollout is held because a promote or abort
// annotation cannot be read (rollout.Config's Unreadable), and drops the condition once
// it can.
func setRolloutHeld(bp *gatewrightv1alpha1.GatewayClassBlueprint, unreadable string) {
	if unreadable == "" {
		meta.RemoveStatusCondition(&bp.Status.Conditions, gatewrightv1alpha1.ConditionRolloutHeld)
		return
	}
	conditions.Set(&bp.Status.Conditions, gatewrightv1alpha1.ConditionRolloutHeld, true, gatewrightv1alpha1.ReasonUnreadableAnnotation,
		unreadable+": no wave starts and none is rolled back until it names a revision or is removed", bp.Generation)
}

// recordRolloutEvents tells, on the blueprint, of a step that started a wave, completed
// the rollout or rolled it back: after the status that says so is written.
func (r *BlueprintReconciler) recordRolloutEvents(bp *gatewrightv1alpha1.GatewayClassBlueprint, before, after *gatewrightv1alpha1.BlueprintRolloutStatus) {
	if after == nil || (before != nil && before.Revision == after.Revision && before.Phase == after.Phase && before.Wave == after.Wave) {
		return
	}
	sameWave := before != nil && before.Revision == after.Revision && before.Wave == after.Wave
	switch after.Phase {
	case gatewrightv1alpha1.RolloutRolledBack:
		message := fmt.Sprintf("revision %d rolled back to %d", after.Revision, after.From)
		if after.Failure != nil {
			message += ": " + after.Failure.Message
		}
		r.Recorder.Event(bp, "Warning", "RolloutRolledBack", message)
	case gatewrightv1alpha1.RolloutComplete:
		if before != nil && before.Revision == after.Revision {
			r.Recorder.Eventf(bp, "Normal", "RolloutComplete", "revision %d runs on every Gateway", after.Revision)
		}
	case gatewrightv1alpha1.RolloutProgressing:
		if sameWave {
			return // resumed: no new wave
		}
		// Numbered from 1 of the waves in spec.rollout, as gatewright rollout status says.
		r.Recorder.Eventf(bp, "Normal", "RolloutWave", "revision %d: wave %d of %d assigned, %d Gateway(s) updated",
			after.Revision, after.Wave+1, len(rollout.ConfigOf(bp).Waves), after.Updated)
	}
}

// active tells whether a rollout waits on a gate.
func active(st *gatewrightv1alpha1.BlueprintRolloutStatus) bool {
	return st != nil && st.Phase == gatewrightv1alpha1.RolloutProgressing
}

// members are the Gateways of the rollout: those of gateways that have a record, each
// with what it runs, what it was assigned, its health on the revision it should run,
// and, while judging a rollout, whether its tenants changed it since its record's render.
// A Gateway without a record yet joins once it has rendered the current revision. What a member ran and
// when is read from its record, which only the controller writes, and a record counts
// only for the Gateway (UID) it names.
func (r *BlueprintReconciler) members(ctx context.Context, bp string, cfg rollout.Config, stable int64, judging bool, gateways []gatewayv1.Gateway, records map[client.ObjectKey]*gatewrightv1alpha1.Rendering) ([]rollout.Member, error) {
	members := make([]rollout.Member, 0, len(gateways))
	for i := range gateways {
		gw := &gateways[i]
		key := client.ObjectKeyFromObject(gw)
		rec := records[key]
		if rec == nil || rec.Owner.UID != gw.UID || !gw.DeletionTimestamp.IsZero() {
			continue
		}
		m := rollout.Member{
			Key: key, Created: gw.CreationTimestamp.Time, Recorded: rec.CreationTimestamp.Time,
			Running: rec.Revision, Target: rec.TargetFor(bp), Gates: rec.GatesRollout,
		}
		if rec.RevisionSince != nil {
			m.RevisionSince = rec.RevisionSince.Time
		}
		if rec.TenantInputsSince != nil {
			m.InputsSince = rec.TenantInputsSince.Time
		}
		httpRoutes, others, err := r.routesNaming(ctx, gw)
		if err != nil {
			return nil, err
		}
		if judging && rec.TenantInputs != "" {
			var configs gatewrightv1alpha1.GatewayConfigList
			if err := r.List(ctx, &configs, client.InNamespace(gw.Namespace), client.UnsafeDisableDeepCopy); err != nil {
				return nil, err
			}
			m.InputsUnrendered = rec.TenantInputs != rollout.TenantInputs(gw, configs.Items, httpRoutes, others)
		}
		health := rollout.Healthy(gw, ownRoutes(gw, httpRoutes, others), rec, max(m.Target, stable))
		m.Healthy, m.Reason, m.HealthySince, m.TenantOnly = health.OK, health.Reason, health.Since, health.TenantOnly
		if cfg.OrderLabel != "" {
			if m.NamespaceLabels, err = (&snapshot.Gatherer{Reader: r.Client}).NamespaceLabels(ctx, gw.Namespace); err != nil {
				return nil, err
			}
		}
		members = append(members, m)
	}
	return members, nil
}

// gatewayRecords are, of renderings, the Gateways' part 0, by Gateway.
func gatewayRecords(renderings []gatewrightv1alpha1.Rendering) map[client.ObjectKey]*gatewrightv1alpha1.Rendering {
	records := map[client.ObjectKey]*gatewrightv1alpha1.Rendering{}
	for i := range renderings {
		if key, ok := apply.GatewayOf(&renderings[i]); ok {
			records[key] = &renderings[i]
		}
	}
	return records
}

// routesNaming are the routes whose parentRefs name gw, of every namespace, the
// HTTPRoutes and those of the other kinds the API server serves, uncopied from the cache:
// they are only read.
func (r *BlueprintReconciler) routesNaming(ctx context.Context, gw *gatewayv1.Gateway) ([]*gatewayv1.HTTPRoute, []routes.Route, error) {
	httpRoutes, err := httpRoutesOf(ctx, r.Client, gw)
	if err != nil {
		return nil, nil, err
	}
	var others []routes.Route
	for _, kind := range r.routeKinds {
		if kind == routes.KindHTTPRoute {
			continue
		}
		named, err := routesOf(ctx, r.Client, kind, gw)
		if err != nil {
			return nil, nil, err
		}
		others = append(others, named...)
	}
	return httpRoutes, others, nil
}

// ownRoutes are, of the routes whose parentRefs name gw, the ones of gw's namespace, the
// only ones that gate it (rollout.Healthy).
func ownRoutes(gw *gatewayv1.Gateway, httpRoutes []*gatewayv1.HTTPRoute, others []routes.Route) []routes.Route {
	var own []routes.Route
	for _, route := range httpRoutes {
		if route.Namespace == gw.Namespace {
			own = append(own, route)
		}
	}
	for _, route := range others {
		if route.GetNamespace() == gw.Namespace {
			own = append(own, route)
		}
	}
	return own
}

// assignmentsInFlight bounds the assignment writes one step has in flight: a wave of a
// thousand Gateways is a thousand small patches, which one after another would take
// longer than the Gateways' own reconciles, which the controller's workers run in parallel.
const assignmentsInFlight = 16

// assign makes a step's assignments: each Gateway's record says the revision it is to
// run, which its reconciler (watching the record) then renders.
func (r *BlueprintReconciler) assign(ctx context.Context, bp *gatewrightv1alpha1.GatewayClassBlueprint, step rollout.Result, records map[client.ObjectKey]*gatewrightv1alpha1.Rendering) error {
	if len(step.Assignments) == 0 {
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(assignmentsInFlight)
	for _, a := range step.Assignments {
		for _, key := range a.Gateways {
			rec := records[key]
			if rec == nil || !r.sent.first(bp.Name, client.ObjectKeyFromObject(rec), sentAssignment{a.Revision, a.Gates, rec.UID}) {
				continue
			}
			g.Go(func() error {
				err := apply.AssignRevision(gctx, r.Client, rec, bp.Name, a.Revision, a.Gates)
				if err != nil {
					r.sent.forget(bp.Name, client.ObjectKeyFromObject(rec))
				}
				return err
			})
		}
		log.FromContext(ctx).Info("rollout assigned a revision", "blueprint", bp.Name, "revision", a.Revision, "gateways", len(a.Gateways))
	}
	return g.Wait()
}

// sentAssignment is what an assignment wrote into a Rendering, and which one (its UID):
// a Rendering deleted and made again under the same name, for a Gateway recreated,
// has none of it.
type sentAssignment struct {
	revision int64
	gates    bool
	uid      types.UID
}

// sentAssignments remembers, by blueprint and Rendering, the assignments written that
// the cache may not show yet, so that a step on a cache a few milliseconds behind does
// not write them again: a wave of a thousand is written before its first event is back.
type sentAssignments struct {
	mu   sync.Mutex
	sent map[string]map[client.ObjectKey]sentAssignment
}

// first tells whether a is not the assignment last sent to the Rendering at key, and
// remembers it.
func (s *sentAssignments) first(blueprint string, key client.ObjectKey, a sentAssignment) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent[blueprint][key] == a {
		return false
	}
	if s.sent == nil {
		s.sent = map[string]map[client.ObjectKey]sentAssignment{}
	}
	if s.sent[blueprint] == nil {
		s.sent[blueprint] = map[client.ObjectKey]sentAssignment{}
	}
	s.sent[blueprint][key] = a
	return true
}

// seen forgets, of blueprint's, what the cache shows written and what is gone: a later
// step that assigns the same again (a rollback undone by a new rollout) writes it.
func (s *sentAssignments) seen(blueprint string, records []gatewrightv1alpha1.Rendering) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sent := s.sent[blueprint]
	if len(sent) == 0 {
		return
	}
	pending := map[client.ObjectKey]sentAssignment{}
	for i := range records {
		rec := &records[i]
		key := client.ObjectKeyFromObject(rec)
		if a, ok := sent[key]; ok && a.uid == rec.UID && a != (sentAssignment{rec.TargetFor(blueprint), rec.GatesRollout, rec.UID}) {
			pending[key] = a
		}
	}
	s.sent[blueprint] = pending
}

func (s *sentAssignments) forget(blueprint string, key client.ObjectKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sent[blueprint], key)
}

// rolloutAsked passes the blueprint updates that ask something of its rollout besides a
// spec edit: the promote (and its force) and abort annotations.
var rolloutAsked = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, updated := e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations()
		return old[gatewrightv1alpha1.AnnotationRolloutPromote] != updated[gatewrightv1alpha1.AnnotationRolloutPromote] ||
			old[gatewrightv1alpha1.AnnotationRolloutAbort] != updated[gatewrightv1alpha1.AnnotationRolloutAbort] ||
			old[gatewrightv1alpha1.AnnotationRolloutForcePromote] != updated[gatewrightv1alpha1.AnnotationRolloutForcePromote]
	},
}
