package controllers

import (
	"context"
	"encoding/json"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/snapshot"
)

// adoptLegacy moves the route's legacy inventories into its Renderings, one per parent
// Gateway. The entries for another shard's Gateways stay in the annotation for that
// shard to move, and the legacy finalizer goes with the last of them.
func (r *HTTPRouteReconciler) adoptLegacy(ctx context.Context, route client.Object, records map[string]*apply.Record, parents []routeParent, elsewhere *gatewaysElsewhere) error {
	if !hasLegacy(route, apply.LegacyRouteInventoryAnnotation) {
		return nil
	}
	old, err := r.legacy.predatesRenderings(ctx, route, "HTTPRoute")
	if err != nil {
		return err
	}
	if !old {
		return r.legacy.dropLegacy(ctx, route, apply.LegacyRouteInventoryAnnotation)
	}
	blueprints := map[string]*gatewrightv1alpha1.GatewayClassBlueprint{}
	for _, parent := range parents {
		if bp, err := snapshot.Blueprint(ctx, r.Client, parent.class); err == nil {
			blueprints[parent.key()] = bp
		}
	}
	remaining := map[string]apply.Inventory{}
	for key, legacy := range apply.DecodeLegacyRouteInventory(route.GetAnnotations()[apply.LegacyRouteInventoryAnnotation]) {
		theirs, err := elsewhere.has(ctx, key)
		if err != nil {
			return err
		}
		if theirs {
			remaining[key] = legacy
			continue
		}
		namespace, name, _ := strings.Cut(key, "/")
		rec := records[key]
		if rec == nil {
			rec = apply.NewRecord(apply.RouteOwner(route, namespace, name))
		}
		if err := r.legacy.adopt(ctx, rec, legacy, blueprints[key], apply.RouteOwner(route, namespace, name)); err != nil {
			return err
		}
		if rec.Exists() {
			records[key] = rec
		}
	}
	if len(remaining) > 0 {
		original := route.DeepCopyObject().(client.Object)
		encoded, _ := json.Marshal(remaining) // maps of plain structs always marshal
		setAnnotation(route, apply.LegacyRouteInventoryAnnotation, string(encoded))
		return client.IgnoreNotFound(r.Patch(ctx, route, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})))
	}
	return r.legacy.dropLegacy(ctx, route, apply.LegacyRouteInventoryAnnotation)
}
