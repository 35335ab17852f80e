package controllers

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/translate"
)

// writes tells whether this instance writes the ancestor entry for target. The shard of a
// Gatewright GatewayClass writes the entries for the class and for its Gateways. The
// primary shard writes every other entry: a Namespace or an HTTPRoute reaches Gateways of
// any shard, and a target that is missing or not Gatewright's belongs to no shard. So one
// policy's entries may come from several instances, but each entry from exactly one.
func (r *PolicyReconciler) writes(ctx context.Context, obj client.Object, target gatewayv1.LocalPolicyTargetReference, primary bool) (bool, error) {
	owner := unowned
	switch target.Kind {
	case "GatewayClass":
		class, err := getClass(ctx, r.Client, string(target.Name))
		if err != nil {
			return false, err
		}
		owner = r.shard.ownership(class)
	case "Gateway":
		var err error
		if owner, err = r.shard.gatewayOwnership(ctx, r.Client, client.ObjectKey{Namespace: obj.GetNamespace(), Name: string(target.Name)}); err != nil {
			return false, err
		}
	}
	if owner == unowned {
		return primary, nil
	}
	return owner == ownedHere, nil
}

// findAncestor returns the entry of ancestors for the same ancestor and controller, or nil.
func findAncestor(ancestors []gatewayv1.PolicyAncestorStatus, ancestor gatewayv1.PolicyAncestorStatus) *gatewayv1.PolicyAncestorStatus {
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

// capAncestors keeps the first maxAncestors targets (those of spec.targetRefs come
// first, in order) and returns the rest.
func capAncestors(targets []gatewayv1.LocalPolicyTargetReference) (kept, omitted []gatewayv1.LocalPolicyTargetReference) {
	if len(targets) <= maxAncestors {
		return targets, nil
	}
	return targets[:maxAncestors], targets[maxAncestors:]
}

// markOmitted sets or clears the AncestorsOmitted condition on the last entry.
func markOmitted(ancestors []gatewayv1.PolicyAncestorStatus, obj client.Object, omitted []gatewayv1.LocalPolicyTargetReference) {
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
	setPolicyCondition(&ancestors[len(ancestors)-1], obj, conditionAncestorsOmitted, translate.Verdict{
		OK: true, Reason: "TooManyAncestors",
		Message: fmt.Sprintf("status.ancestors holds at most %d entries; %d more ancestors are not listed: %s", maxAncestors, len(omitted), strings.Join(names, ", ")),
	})
}
