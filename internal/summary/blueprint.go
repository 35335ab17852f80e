package summary

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Blueprint sums up a blueprint's status as its reconciler is about to write it. Not
// accepted, a rollout rolled back (until a new revision starts another) and a rollout
// annotation that cannot be read fail it; a wave waiting on its gate, or a newer
// revision not yet rolling out, keeps it Progressing; a paused rollout holds it.
// Gateways failing to render do not: a tenant's values fail a Gateway as well as a
// blueprint does, and what a revision breaks its rollout rolls back; the message counts
// them all the same.
func Blueprint(status *gatewrightv1alpha1.GatewayClassBlueprintStatus) Verdict {
	if accepted := meta.FindStatusCondition(status.Conditions, "Accepted"); accepted != nil && accepted.Status != metav1.ConditionTrue {
		return Verdict{State: Failed, Reason: accepted.Reason, Message: accepted.Message}
	}
	if held := meta.FindStatusCondition(status.Conditions, gatewrightv1alpha1.ConditionRolloutHeld); held != nil && held.Status == metav1.ConditionTrue {
		return Verdict{State: Failed, Reason: held.Reason, Message: held.Message}
	}
	if v, ok := rolloutVerdict(status.Rollout); ok {
		return v
	}
	if status.TargetRevision != status.CurrentRevision {
		return Verdict{State: Progressing, Reason: gatewrightv1alpha1.ReasonRolloutProgressing,
			Message: fmt.Sprintf("revision %d is to roll out; Gateways run revision %d", status.TargetRevision, status.CurrentRevision)}
	}
	message := fmt.Sprintf("revision %d runs on every Gateway", status.CurrentRevision)
	if status.CurrentRevision == 0 {
		message = "the blueprint is accepted"
	}
	if status.FailingGateways > 0 {
		message += fmt.Sprintf("; %d Gateway(s) fail to render or apply (%s)", status.FailingGateways, gatewrightv1alpha1.ConditionRendered)
	}
	return Verdict{State: InEffect, Reason: gatewrightv1alpha1.ReasonRolledOut, Message: message}
}

// rolloutVerdict is what rollout says when it is under way, held or rolled back.
func rolloutVerdict(rollout *gatewrightv1alpha1.BlueprintRolloutStatus) (Verdict, bool) {
	if rollout == nil {
		return Verdict{}, false
	}
	switch rollout.Phase {
	case gatewrightv1alpha1.RolloutProgressing:
		return Verdict{State: Progressing, Reason: gatewrightv1alpha1.ReasonRolloutProgressing,
			Message: fmt.Sprintf("revision %d: wave %d assigned, %d Gateway(s) updated; waiting on its gate", rollout.Revision, rollout.Wave+1, rollout.Updated)}, true
	case gatewrightv1alpha1.RolloutPaused:
		return Verdict{State: Held, Reason: gatewrightv1alpha1.ReasonRolloutPaused,
			Message: fmt.Sprintf("revision %d: spec.rollout.paused holds the rollout, %d Gateway(s) updated", rollout.Revision, rollout.Updated)}, true
	case gatewrightv1alpha1.RolloutRolledBack:
		return Verdict{State: Failed, Reason: gatewrightv1alpha1.ReasonRolledBack, Message: RolledBackMessage(rollout)}, true
	}
	return Verdict{}, false
}

// RolledBackMessage says which revision a rollout rolled back, and why.
func RolledBackMessage(rollout *gatewrightv1alpha1.BlueprintRolloutStatus) string {
	message := fmt.Sprintf("revision %d was rolled back to %d", rollout.Revision, rollout.From)
	if f := rollout.Failure; f != nil {
		message += fmt.Sprintf(": wave %d failed its gate", f.Wave+1)
		if len(f.Gateways) > 0 {
			message += " on " + strings.Join(f.Gateways[:min(len(f.Gateways), named)], ", ")
		}
		if f.Message != "" {
			message += ": " + f.Message
		}
	}
	return message + "; a new revision starts a new rollout"
}
