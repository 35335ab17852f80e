package summary

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/translate"
)

// named bounds how many ancestors a summary's message names.
const named = 3

// Policy sums up the ancestors a policy of generation has in its status, Gatewright's
// entries among them, of the expected ones (its targets, up to the 16 the list holds).
// An ancestor that is not Accepted fails the policy: Invalid or TargetNotFound needs an
// edit. An ancestor not judged for generation yet (another shard writes it) keeps it
// Progressing. Otherwise it is in effect: Programmed, PartiallyProgrammed, Overridden
// (beaten by design: a policy of another level wins, and nothing waits or is wrong) and
// Reconciling with nothing to program (no Gateway takes values from the target yet, or a
// bound other policies took keeps the values from being computed, which those report)
// all leave the policy as its author meant it; the message names those not Programmed.
func Policy(generation int64, ancestors []gatewayv1.PolicyAncestorStatus, expected int) Verdict {
	var failed, pending, partial []string
	var failReason string
	judged := 0
	for i := range ancestors {
		a := &ancestors[i]
		if !gatewrightv1alpha1.IsGatewright(a.ControllerName) {
			continue
		}
		judged++
		name := ancestorName(a)
		accepted := meta.FindStatusCondition(a.Conditions, string(gatewayv1.PolicyConditionAccepted))
		programmed := meta.FindStatusCondition(a.Conditions, translate.ConditionProgrammed)
		switch {
		case stale(accepted, generation) || stale(programmed, generation):
			pending = append(pending, name)
		case accepted.Status != metav1.ConditionTrue:
			if failReason == "" {
				failReason = accepted.Reason
			}
			failed = append(failed, fmt.Sprintf("%s: %s: %s", name, accepted.Reason, accepted.Message))
		case programmed.Reason != translate.ReasonProgrammed:
			partial = append(partial, fmt.Sprintf("%s: %s: %s", name, programmed.Reason, programmed.Message))
		}
	}
	switch {
	case len(failed) > 0:
		return Verdict{State: Failed, Reason: failReason, Message: conditions.FirstFew(failed, named)}
	case len(pending) > 0 || judged < expected:
		message := fmt.Sprintf("%d of %d ancestor(s) not judged for generation %d yet", len(pending)+max(expected-judged, 0), max(expected, judged), generation)
		if len(pending) > 0 {
			message += ": " + conditions.FirstFew(pending, named)
		}
		return Verdict{State: Progressing, Reason: gatewrightv1alpha1.ReasonAncestorsPending, Message: message}
	case len(partial) > 0:
		return Verdict{State: InEffect, Reason: translate.ReasonPartiallyProgrammed,
			Message: fmt.Sprintf("Programmed on %d of %d ancestor(s); %s", judged-len(partial), judged, conditions.FirstFew(partial, named))}
	case judged == 0:
		return Verdict{State: InEffect, Reason: translate.ReasonProgrammed, Message: "no ancestor: the policy targets nothing yet"}
	}
	return Verdict{State: InEffect, Reason: translate.ReasonProgrammed, Message: fmt.Sprintf("Programmed on every ancestor (%d)", judged)}
}

// stale tells whether c is missing or was written for another generation than generation.
func stale(c *metav1.Condition, generation int64) bool {
	return c == nil || c.ObservedGeneration != generation
}

func ancestorName(a *gatewayv1.PolicyAncestorStatus) string {
	kind := "Gateway"
	if a.AncestorRef.Kind != nil {
		kind = string(*a.AncestorRef.Kind)
	}
	return kind + "/" + string(a.AncestorRef.Name)
}
