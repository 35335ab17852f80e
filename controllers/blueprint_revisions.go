package controllers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// maxRevisionsInStatus bounds status.revisions (its CRD MaxItems).
const maxRevisionsInStatus = 64

// history is a blueprint's revisions, oldest first.
type history []*gatewrightv1alpha1.GatewayClassBlueprintRevision

func (h history) newest() *gatewrightv1alpha1.GatewayClassBlueprintRevision {
	if len(h) == 0 {
		return nil
	}
	return h[len(h)-1]
}

// historyOf reads bp's revisions from the cache.
func (r *BlueprintReconciler) historyOf(ctx context.Context, bp *gatewrightv1alpha1.GatewayClassBlueprint) (history, error) {
	var list gatewrightv1alpha1.GatewayClassBlueprintRevisionList
	if err := r.List(ctx, &list, client.MatchingLabels{gatewrightv1alpha1.LabelBlueprint: revisions.LabelValue(bp.Name)}); err != nil {
		return nil, fmt.Errorf("reading the revisions of GatewayClassBlueprint %s: %w", bp.Name, err)
	}
	var out history
	for i := range list.Items {
		// A cut label may be shared; a blueprint deleted and made again under the same
		// name leaves revisions that are not this one's until they are collected.
		if rev := &list.Items[i]; rev.Blueprint == bp.Name && metav1.IsControlledBy(rev, bp) {
			out = append(out, rev)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Revision < out[j].Revision })
	return out, nil
}

// parsedForm is the blueprint as the parse cache should see it: as its newest revision
// when the spec is that revision's, which is what its Gateways render, so that judging
// it parses nothing again; as it is otherwise.
func parsedForm(bp *gatewrightv1alpha1.GatewayClassBlueprint, h history, hash string) *gatewrightv1alpha1.GatewayClassBlueprint {
	if newest := h.newest(); newest != nil && newest.Hash == hash {
		return snapshot.AsRevision(bp, newest)
	}
	return bp
}

// revise writes revision n+1 of an accepted blueprint whose spec is not its newest
// revision's, lets go of the revisions beyond the history that no Rendering records, and
// sets the status's revisions and targetRevision, which the rollout then takes to the
// Gateways (blueprint_rollout.go). A blueprint that is not accepted makes no revision:
// its Gateways keep the one they run.
func (r *BlueprintReconciler) revise(ctx context.Context, bp *gatewrightv1alpha1.GatewayClassBlueprint, accepted bool, h history, hash string, riding []gatewrightv1alpha1.RevisionClassConfig, renderings []gatewrightv1alpha1.Rendering) error {
	if newest := h.newest(); accepted && (newest == nil || newest.Hash != hash) {
		next := int64(1)
		if newest != nil {
			next = newest.Revision + 1
		}
		adopted, err := r.rendersAsCurrent(ctx, bp, newest, riding)
		if err != nil {
			return err
		}
		rev := newRevision(bp, next, hash, riding)
		if err := r.Create(ctx, rev); err != nil {
			err = fmt.Errorf("writing revision %d of GatewayClassBlueprint %s: %w", next, bp.Name, err)
			if !apierrors.IsAlreadyExists(err) { // else the cache had not seen it; retried as a stale read
				r.noRevision(bp, err)
			}
			return err
		}
		h = append(h, rev)
		if adopted {
			// Nothing to roll out: the revision is current at once, and its rollout is
			// complete before it starts (rollout.Step from a current target).
			bp.Status.CurrentRevision = next
		}
	}
	running, inUse := revisionsInUse(renderings)
	inUse[bp.Status.CurrentRevision] = true
	if bp.Status.Rollout != nil {
		inUse[bp.Status.Rollout.From] = true
	}
	h, err := r.prune(ctx, h, inUse)
	if err != nil {
		return err
	}
	if newest := h.newest(); newest != nil {
		bp.Status.TargetRevision = newest.Revision
	}
	bp.Status.Revisions = nil
	for _, rev := range h[max(0, len(h)-maxRevisionsInStatus):] {
		bp.Status.Revisions = append(bp.Status.Revisions, gatewrightv1alpha1.RevisionGateways{Revision: rev.Revision, Gateways: running[rev.Revision]})
	}
	return nil
}

// rendersAsCurrent tells whether the revision bp makes now, holding riding, renders on
// every Gateway what they render already (revisions.RendersAs): newest is the current
// revision and its rollout is over, and the new revision only takes in class-wide
// GatewayClassConfigs as they are in effect (those that ride since they opted in, or
// since configs ride by default) or lets go of one that opted out. Such a revision needs
// no waves: rolling out what every Gateway already renders could only fail for reasons
// that are not its own.
func (r *BlueprintReconciler) rendersAsCurrent(ctx context.Context, bp *gatewrightv1alpha1.GatewayClassBlueprint, newest *gatewrightv1alpha1.GatewayClassBlueprintRevision, riding []gatewrightv1alpha1.RevisionClassConfig) (bool, error) {
	if newest == nil || newest.Revision != bp.Status.CurrentRevision || (bp.Status.Rollout != nil && bp.Status.Rollout.Phase != gatewrightv1alpha1.RolloutComplete) {
		return false, nil
	}
	var live gatewrightv1alpha1.GatewayClassConfigList
	if err := r.List(ctx, &live, client.InNamespace(r.ControllerNamespace), client.UnsafeDisableDeepCopy); err != nil {
		return false, err
	}
	return revisions.RendersAs(newest, &bp.Spec, riding, live.Items, r.ControllerNamespace)
}

// newRevision is revision n of bp, holding its spec and the configs riding its rollout,
// owned by it.
func newRevision(bp *gatewrightv1alpha1.GatewayClassBlueprint, n int64, hash string, riding []gatewrightv1alpha1.RevisionClassConfig) *gatewrightv1alpha1.GatewayClassBlueprintRevision {
	yes := true
	rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:   revisions.Name(bp.Name, n),
			Labels: revisions.Labels(bp.Name),
			// No blockOwnerDeletion: it would need the right to update the blueprint's
			// finalizers, and nothing waits for the revisions to go.
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: gatewrightv1alpha1.GroupVersion.String(), Kind: gatewrightv1alpha1.KindGatewayClassBlueprint,
				Name: bp.Name, UID: bp.UID, Controller: &yes,
			}},
		},
		Blueprint:    bp.Name,
		Revision:     n,
		Hash:         hash,
		Spec:         *bp.Spec.DeepCopy(),
		ClassConfigs: riding,
		// A class-wide config rides unless it opts out (revisions.WithHeld reads it).
		ClassConfigsRideByDefault: true,
	}
	rev.SetGroupVersionKind(gatewrightv1alpha1.GroupVersion.WithKind(gatewrightv1alpha1.KindGatewayClassBlueprintRevision))
	return rev
}

// renderingsOf reads from the cache, uncopied, the Renderings rendered from blueprint.
func (r *BlueprintReconciler) renderingsOf(ctx context.Context, blueprint string) ([]gatewrightv1alpha1.Rendering, error) {
	var list gatewrightv1alpha1.RenderingList
	if err := r.List(ctx, &list, client.MatchingFields{indexRenderingBlueprint: blueprint}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("reading the Renderings of GatewayClassBlueprint %s: %w", blueprint, err)
	}
	return list.Items, nil
}

// revisionsInUse counts, of renderings, the Gateways that run each revision, and lists
// every revision a Rendering (a Gateway's or a route's) records or a rollout assigned.
func revisionsInUse(renderings []gatewrightv1alpha1.Rendering) (running map[int64]int32, inUse map[int64]bool) {
	running, inUse = map[int64]int32{}, map[int64]bool{}
	for i := range renderings {
		rendering := &renderings[i]
		inUse[rendering.Revision], inUse[rendering.TargetRevision] = true, true
		if rendering.Owner.Kind == "Gateway" {
			running[rendering.Revision]++
		}
	}
	return running, inUse
}

// prune deletes the revisions older than the newest revisions.HistoryLimit that no
// Rendering records, and returns those that are left.
func (r *BlueprintReconciler) prune(ctx context.Context, h history, inUse map[int64]bool) (history, error) {
	var kept history
	for i, rev := range h {
		if i >= len(h)-revisions.HistoryLimit || inUse[rev.Revision] {
			kept = append(kept, rev)
			continue
		}
		if err := r.Delete(ctx, rev); client.IgnoreNotFound(err) != nil {
			return h, fmt.Errorf("deleting revision %d of GatewayClassBlueprint %s: %w", rev.Revision, rev.Blueprint, err)
		}
	}
	return kept, nil
}

// ridingConfigs are the class-wide GatewayClassConfigs that ride the rollouts of
// blueprint, as its next revision holds them: those that target classes, the
// blueprint's GatewayClasses.
func (r *BlueprintReconciler) ridingConfigs(ctx context.Context, bp *gatewrightv1alpha1.GatewayClassBlueprint, classes []types.NamespacedName) ([]gatewrightv1alpha1.RevisionClassConfig, error) {
	var list gatewrightv1alpha1.GatewayClassConfigList
	if err := r.List(ctx, &list, client.InNamespace(r.ControllerNamespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	names := make([]string, len(classes))
	for i, class := range classes {
		names[i] = class.Name
	}
	riding, err := revisions.ClassConfigs(list.Items, r.ControllerNamespace, names)
	if err != nil {
		r.noRevision(bp, err)
	}
	return riding, err
}

// blueprintsOfClassConfig maps a class-wide GatewayClassConfig that rides (or rode, or
// may ride) rollouts to the blueprints of the classes it targets.
func (r *BlueprintReconciler) blueprintsOfClassConfig(ctx context.Context, obj client.Object) []reconcile.Request {
	gcc := obj.(*gatewrightv1alpha1.GatewayClassConfig)
	if gcc.Namespace != r.ControllerNamespace {
		return nil
	}
	var requests []reconcile.Request
	for _, ref := range gcc.Spec.TargetRefs {
		class, err := getClass(ctx, r.Client, string(ref.Name))
		blueprint, ok := translate.ClassBlueprint(class)
		if err != nil || ref.Kind != "GatewayClass" || !ok {
			continue
		}
		req := reconcile.Request{NamespacedName: types.NamespacedName{Name: blueprint}}
		if !slices.Contains(requests, req) {
			requests = append(requests, req)
		}
	}
	return requests
}

// noRevision tells the provider, on the blueprint, that its change makes no revision
// (more riding GatewayClassConfigs than a revision holds, a revision the API server
// refuses as too large): the Gateways keep the revision they run until it is mended.
func (r *BlueprintReconciler) noRevision(bp *gatewrightv1alpha1.GatewayClassBlueprint, err error) {
	r.Recorder.Event(bp, "Warning", "RevisionNotWritten", err.Error()+"; the Gateways keep the revision they run")
}

// renderingsOfRevisions maps a Gateway's Rendering to the blueprint whose revision it
// records, so that the blueprint counts the Gateways per revision.
func renderingsOfRevisions(_ context.Context, obj client.Object) []reconcile.Request {
	rendering := obj.(*gatewrightv1alpha1.Rendering)
	if rendering.Owner.Kind != "Gateway" || rendering.Part != 0 || rendering.Values == nil {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: rendering.Values.Blueprint}}}
}

// recountCoalescing is how long a blueprint waits after a Rendering records a revision
// before it counts again how many Gateways run each: while a fleet is created or moves
// to a new revision, every Gateway's Rendering changes a count, and a status write for
// each would add one write per Gateway to the change.
const recountCoalescing = 5 * time.Second

func recountAfter(reconcile.Request) time.Duration { return recountCoalescing }

// revisionRecordChanged passes the Renderings that come, go, or record another revision.
var revisionRecordChanged = builder.WithPredicates(predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, updated := e.ObjectOld.(*gatewrightv1alpha1.Rendering), e.ObjectNew.(*gatewrightv1alpha1.Rendering)
		return old.Revision != updated.Revision || old.TargetRevision != updated.TargetRevision || old.TargetBlueprint != updated.TargetBlueprint
	},
})
