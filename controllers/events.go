package controllers

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"

	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/translate"
)

// recordChanges tells in events on obj what an apply changed and pruned, when obj
// itself is why: drift corrected, or an edit of obj. An owner's first apply, which
// creates everything it renders, sends none: its conditions and its Rendering say what
// was made. Nor does a change that a new blueprint revision or new values brought
// (rec.NewInputs): that edit was of a blueprint or a policy, shared by many owners, and
// one event per owner would cost the API server a write per Gateway of the fleet for
// one edit. The edited object says it instead (the blueprint's rollout events, the
// policy's Enforced condition), and each owner's Rendering records the revision and the
// values it now runs, and since when. applied is nil when the apply failed (the
// ApplyFailed event says so); a round whose last record write failed still tells its
// changes.
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
	return c.Status != metav1.ConditionTrue && c.Reason != translate.ReasonPending
}
