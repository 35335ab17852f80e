package translate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/conditions"
)

// The entries of a policy's status.ancestors, one per target.

// FindAncestor returns the entry of ancestors for the same ancestor and controller, or nil.
func FindAncestor(ancestors []gatewayv1.PolicyAncestorStatus, ancestor gatewayv1.PolicyAncestorStatus) *gatewayv1.PolicyAncestorStatus {
	for i := range ancestors {
		if ancestors[i].ControllerName == ancestor.ControllerName && equality.Semantic.DeepEqual(ancestors[i].AncestorRef, ancestor.AncestorRef) {
			return &ancestors[i]
		}
	}
	return nil
}

// ancestorsNamed bounds how many omitted ancestors a message names.
const ancestorsNamed = 5

// maxAncestors is how many entries Gateway API's PolicyStatus holds.
const maxAncestors = 16

// conditionAncestorsOmitted, on the last entry of a full status.ancestors, says which
// ancestors the list has no room for: Gateway API allows no more than 16 entries and asks
// that a full list be said so, never that the write fail.
const conditionAncestorsOmitted = "gatewright.dev/AncestorsOmitted"

// CapAncestors keeps the first maxAncestors targets (those of spec.targetRefs come
// first, in order) and returns the rest.
func CapAncestors(targets []gatewayv1.LocalPolicyTargetReference) (kept, omitted []gatewayv1.LocalPolicyTargetReference) {
	if len(targets) <= maxAncestors {
		return targets, nil
	}
	return targets[:maxAncestors], targets[maxAncestors:]
}

// MarkOmitted sets or clears the AncestorsOmitted condition on the last entry.
func MarkOmitted(ancestors []gatewayv1.PolicyAncestorStatus, generation int64, omitted []gatewayv1.LocalPolicyTargetReference) {
	for i := range ancestors {
		meta.RemoveStatusCondition(&ancestors[i].Conditions, conditionAncestorsOmitted)
	}
	if len(omitted) == 0 || len(ancestors) == 0 {
		return
	}
	names := make([]string, 0, len(omitted))
	for _, t := range omitted {
		if len(names) == ancestorsNamed {
			names = append(names, fmt.Sprintf("and %d more", len(omitted)-ancestorsNamed))
			break
		}
		names = append(names, string(t.Kind)+" "+string(t.Name))
	}
	SetAncestorCondition(&ancestors[len(ancestors)-1], generation, conditionAncestorsOmitted, Verdict{
		OK: true, Reason: "TooManyAncestors",
		Message: fmt.Sprintf("status.ancestors holds at most %d entries; %d more ancestors are not listed: %s", maxAncestors, len(omitted), strings.Join(names, ", ")),
	})
}

// SetAncestorCondition sets conditionType of a policy's ancestor entry as v says, for
// the policy's generation.
func SetAncestorCondition(ancestor *gatewayv1.PolicyAncestorStatus, generation int64, conditionType string, v Verdict) {
	conditions.Set(&ancestor.Conditions, conditionType, v.OK, v.Reason, v.Message, generation)
}

// AncestorRef is the ancestorRef of a policy of namespace for target.
func AncestorRef(namespace string, target gatewayv1.LocalPolicyTargetReference) gatewayv1.ParentReference {
	group, kind := target.Group, target.Kind
	ref := gatewayv1.ParentReference{Group: &group, Kind: &kind, Name: target.Name}
	if target.Kind == "Gateway" || target.Kind == "HTTPRoute" {
		ns := gatewayv1.Namespace(namespace)
		ref.Namespace = &ns
	}
	return ref
}
