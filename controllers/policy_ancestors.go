package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
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
