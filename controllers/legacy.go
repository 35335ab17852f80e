package controllers

import (
	"context"
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/snapshot"
)

// Before Renderings, the inventory lived in an annotation on the Gateway or HTTPRoute
// and the clean-up finalizer on the object itself, both writable by tenants. They are
// moved once: an entry is kept only if the live object it names checks out
// (apply.Adoptable), and then the annotation and the finalizer are removed.

// legacyAdopter moves legacy inventories into Renderings.
type legacyAdopter struct {
	client  client.Client
	applier *apply.Applier
}

// adopt adds to rec the entries of a legacy inventory of owner that check out. Only an
// owner without a Rendering can have one: once it has a Rendering, an annotation is a
// tenant's writing, dropped unread, so that rewriting it cannot make Gatewright read
// thousands of objects again and again.
func (a *legacyAdopter) adopt(ctx context.Context, rec *apply.Record, legacy apply.Inventory, bp *gatewrightv1alpha1.GatewayClassBlueprint, owner apply.Owner) error {
	if rec.Exists() {
		return nil
	}
	adopted := a.applier.Adoptable(ctx, owner, legacy, declaredClusterScoped(bp))
	return a.applier.SaveRecord(ctx, rec, apply.Planned(adopted, rec.Inventory))
}

// hasLegacy tells whether obj still carries the legacy annotation key or finalizer.
func hasLegacy(obj client.Object, key string) bool {
	_, annotated := obj.GetAnnotations()[key]
	return annotated || controllerutil.ContainsFinalizer(obj, apply.LegacyFinalizer)
}

// dropLegacy removes the legacy annotation key and finalizer from obj, guarded by its
// resourceVersion so that no other finalizer added meanwhile is lost.
func (a *legacyAdopter) dropLegacy(ctx context.Context, obj client.Object, key string) error {
	original := obj.DeepCopyObject().(client.Object)
	setAnnotation(obj, key, "")
	controllerutil.RemoveFinalizer(obj, apply.LegacyFinalizer)
	return client.IgnoreNotFound(a.client.Patch(ctx, obj, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})))
}

// declaredClusterScoped tells whether an entry's kind is one the blueprint declares
// cluster-scoped; without a blueprint none is.
func declaredClusterScoped(bp *gatewrightv1alpha1.GatewayClassBlueprint) func(apply.Entry) bool {
	return func(e apply.Entry) bool {
		if bp == nil {
			return false
		}
		gk := schema.FromAPIVersionAndKind(e.APIVersion, e.Kind).GroupKind()
		for _, k := range bp.Spec.ClusterScopedKinds {
			if string(k.Group) == gk.Group && string(k.Kind) == gk.Kind {
				return true
			}
		}
		return false
	}
}

// adoptLegacy moves the Gateway's legacy inventory into its Rendering.
func (r *GatewayReconciler) adoptLegacy(ctx context.Context, gw client.Object, rec *apply.Record, bp *gatewrightv1alpha1.GatewayClassBlueprint) error {
	if !hasLegacy(gw, apply.LegacyInventoryAnnotation) {
		return nil
	}
	legacy := apply.DecodeLegacyInventory(gw.GetAnnotations()[apply.LegacyInventoryAnnotation])
	if err := r.legacy.adopt(ctx, rec, legacy, bp, apply.GatewayOwner(gw)); err != nil {
		return err
	}
	return r.legacy.dropLegacy(ctx, gw, apply.LegacyInventoryAnnotation)
}

// adoptLegacy moves the route's legacy inventories into its Renderings, one per parent
// Gateway. The entries for another shard's Gateways stay in the annotation for that
// shard to move, and the legacy finalizer goes with the last of them.
func (r *HTTPRouteReconciler) adoptLegacy(ctx context.Context, route client.Object, records map[string]*apply.Record, parents []routeParent, elsewhere *gatewaysElsewhere) error {
	if !hasLegacy(route, apply.LegacyRouteInventoryAnnotation) {
		return nil
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
