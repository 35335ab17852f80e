package controllers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
)

// adoptLegacy moves the Gateway's legacy inventory into its Rendering.
func (r *GatewayReconciler) adoptLegacy(ctx context.Context, gw client.Object, rec *apply.Record, bp *gatewrightv1alpha1.GatewayClassBlueprint) error {
	if !hasLegacy(gw, apply.LegacyInventoryAnnotation) {
		return nil
	}
	if rec.Exists() {
		// Its annotation is a tenant's writing since the Rendering exists: dropped unread.
		return r.legacy.dropLegacy(ctx, gw, apply.LegacyInventoryAnnotation)
	}
	old, err := r.legacy.predatesRenderings(ctx, gw, "Gateway")
	if err != nil {
		return err
	}
	if old {
		legacy := apply.DecodeLegacyInventory(gw.GetAnnotations()[apply.LegacyInventoryAnnotation])
		if err := r.legacy.adopt(ctx, rec, legacy, bp, apply.GatewayOwner(gw)); err != nil {
			return err
		}
	}
	return r.legacy.dropLegacy(ctx, gw, apply.LegacyInventoryAnnotation)
}
