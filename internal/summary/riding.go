package summary

import (
	"fmt"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Riding sums up where the change of a GatewayClassConfig that rides the rollouts of
// blueprint stands on one of its classes. rollout is the blueprint's rollout while it is
// not complete, else nil; before says whether the revision the Gateways ran before it
// (its From; without one, the current revision) renders the config as it is
// (revisions.InEffect), carried whether the rollout's revision does. A change the
// rollout carries is as far as the rollout: under way, held, or failed when it was rolled
// back. One no revision holds yet waits for the blueprint to make one.
func Riding(blueprint string, rollout *gatewrightv1alpha1.BlueprintRolloutStatus, before, carried bool) Verdict {
	if rollout != nil && carried && !before {
		if v, ok := rolloutVerdict(rollout); ok {
			v.Message = fmt.Sprintf("rides the rollout of GatewayClassBlueprint %s: %s", blueprint, v.Message)
			return v
		}
	}
	if before && (rollout == nil || carried) {
		return Verdict{State: InEffect, Reason: gatewrightv1alpha1.ReasonRolledOut,
			Message: "in effect on every Gateway of GatewayClassBlueprint " + blueprint}
	}
	return Verdict{State: Progressing, Reason: gatewrightv1alpha1.ReasonRevisionPending,
		Message: fmt.Sprintf("waiting for GatewayClassBlueprint %s to make a revision that holds the change", blueprint)}
}
