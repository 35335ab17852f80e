package controllers

import (
	"context"
	"errors"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/translate"
)

// What a round makes of its outcome: how its error is classified (retried or not),
// and what it tells of it in events, logs and metrics.

// isInputError tells whether err comes from the inputs: retrying cannot help until they
// change, and a change triggers a reconcile.
func isInputError(err error) bool { return translate.Classify(err) == translate.InputError }

// logRefusedApply logs an apply the API server refused as invalid, which is not retried
// (isInputError): the log line is the only one until the input changes, where a retried
// error would print one per backoff step.
func logRefusedApply(ctx context.Context, err error) {
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
		log.FromContext(ctx).Info("The API server refused a rendered object; waiting for the blueprint or values to change", "error", err.Error())
	}
}

// staleRecord tells whether err is a write refused because what it was based on was
// read from a cache that had not seen the previous write yet (a Rendering, say).
// Nothing went wrong: writing anyway could drop what the previous round recorded, so
// the round is retried (ctrlutil.RetryingConflicts). Server-side applies force
// ownership and so never conflict.
func staleRecord(err error) bool { return translate.Classify(err) == translate.Conflict }

// renderStopped tells whether err is a render stopped by its time limit or because the
// renders running at once held the memory they share: it says nothing of the inputs, so
// the round is retried and the last verdict stands, rather than a Programmed Gateway or
// an accepted route turning Invalid because the controller was busy.
func renderStopped(err error) bool {
	return errors.Is(err, render.ErrTimeLimit) || errors.Is(err, render.ErrBusy)
}

// recordChanges tells in events on obj what an apply changed and pruned, when obj
// itself is why: drift corrected, or an edit of obj. An owner's first apply, which
// creates everything it renders, sends none: its conditions and its Rendering say what
// was made. Nor does a change that a new blueprint revision or new values brought
// (rec.NewInputs): that edit was of a blueprint or a policy, shared by many owners, and
// one event per owner would cost the API server a write per Gateway of the fleet for
// one edit. The edited object says it instead (the blueprint's rollout events, the
// policy's Programmed condition), and each owner's Rendering records the revision and the
// values it now runs, and since when. applied is nil when the apply failed (the
// ApplyFailed event says so); a round whose last record write failed still tells its
// changes, but not one whose record was stale (staleRecord): what it read of its inputs
// may predate the edit that brought them, and its retry applies again.
func recordChanges(recorder record.EventRecorder, obj runtime.Object, rec *apply.Record, first bool, applied *apply.Result) {
	if applied == nil || first || rec.NewInputs() {
		return
	}
	if len(applied.Changed) > 0 {
		recorder.Event(obj, "Normal", "Applied", "applied "+strings.Join(applied.Changed, ", "))
	}
	if len(applied.Pruned) > 0 {
		recorder.Event(obj, "Normal", "Pruned", "deleted what is no longer rendered: "+strings.Join(applied.Pruned, ", "))
	}
}

// recordConditionChange records an event on obj when condition turns into a problem (not
// True, and not merely Pending) or recovers from one, compared with the condition of its
// type in before: one per change of state, never one per reconcile, so that a failing
// fleet cannot flood the events of a blueprint, class or policy, and a fleet coming up
// adds none.
func recordConditionChange(recorder record.EventRecorder, obj runtime.Object, before []metav1.Condition, condition metav1.Condition) {
	old := meta.FindStatusCondition(before, condition.Type)
	switch {
	case old != nil && old.Status == condition.Status && old.Reason == condition.Reason:
	case isProblem(condition):
		recorder.Event(obj, corev1.EventTypeWarning, condition.Reason, condition.Message)
	case old != nil && isProblem(*old):
		recorder.Event(obj, corev1.EventTypeNormal, condition.Reason, condition.Message)
	}
}

// isProblem tells whether a condition says something is wrong, rather than fine or not
// decided yet.
func isProblem(c metav1.Condition) bool {
	return c.Status != metav1.ConditionTrue && c.Reason != translate.ReasonPending && c.Reason != translate.ReasonReconciling
}

// keepWaiting keeps the objects of templates that wait for a dependency: they were
// rendered before and are not gone, only not rendered this round.
func keepWaiting(waiting []render.Waiting) func(apply.Entry) bool {
	return func(e apply.Entry) bool {
		for _, w := range waiting {
			if w.Template == e.Template {
				return true
			}
		}
		return false
	}
}

// countRender counts one render of kind with blueprint and, when its inputs refused it,
// where: the failing template, or "values".
func countRender(kind, blueprint string, err error) {
	if err == nil {
		metrics.Renders.WithLabelValues(kind, metrics.ResultSuccess).Inc()
		return
	}
	metrics.Renders.WithLabelValues(kind, metrics.ResultError).Inc()
	if !isInputError(err) {
		return // reading the cluster failed: nothing for the blueprint's author to fix
	}
	template := metrics.TemplateValues
	var renderErr *render.Error
	if errors.As(err, &renderErr) {
		template = renderErr.Template
	}
	metrics.RenderErrors.WithLabelValues(blueprint, template).Inc()
}

// countApply counts one apply round of kind that took since start, and the objects it
// changed and deleted: also those of a round whose last record write failed (res is
// then not nil), since the next round finds them done.
func countApply(kind string, start time.Time, res *apply.Result, err error) {
	metrics.ApplyDuration.WithLabelValues(kind).Observe(time.Since(start).Seconds())
	var conflict *apply.ConflictError
	switch {
	case errors.As(err, &conflict):
		metrics.Applies.WithLabelValues(kind, metrics.ResultConflict).Inc()
	case err != nil:
		metrics.Applies.WithLabelValues(kind, metrics.ResultError).Inc()
	default:
		metrics.Applies.WithLabelValues(kind, metrics.ResultSuccess).Inc()
	}
	if res != nil {
		metrics.AppliedObjects.WithLabelValues(kind, metrics.ResultChanged).Add(float64(len(res.Changed)))
		metrics.AppliedObjects.WithLabelValues(kind, metrics.ResultUnchanged).Add(float64(len(res.Applied) - len(res.Changed)))
		metrics.DeletedObjects.WithLabelValues(kind, metrics.ReasonPruned).Add(float64(len(res.Pruned)))
	}
}

// countCleanup counts the objects deleted because their Gateway or route went away.
func countCleanup(kind string, deleted []string) {
	metrics.DeletedObjects.WithLabelValues(kind, metrics.ReasonCleanup).Add(float64(len(deleted)))
}

// observeTranslation records how long the values and the render of res took.
func observeTranslation(kind string, res *translate.Result) {
	metrics.ValuesMergeDuration.WithLabelValues(kind).Observe(res.ValuesTook.Seconds())
	if res.RenderTook > 0 { // it rendered
		metrics.RenderDuration.WithLabelValues(kind).Observe(res.RenderTook.Seconds())
	}
}
