package apply

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Before Renderings, the inventory lived in an annotation on the Gateway or HTTPRoute
// and the clean-up finalizer on the object itself, both writable by tenants. They are
// moved once: an entry is kept only if the live object it names checks out
// (Adoptable), and then the annotation and the finalizer are removed.
//
// What a tenant can forge must cost little: only an owner that existed before the
// upgrade is read (predatesRenderings), only entries of kinds its blueprint can render,
// at most LegacyEntryLimit of them, from the cache.

// LegacyAdopter moves legacy inventories into Renderings.
type LegacyAdopter struct {
	Client   client.Client
	Applier  *Applier
	Recorder record.EventRecorder
}

// AdoptGateway moves the Gateway's legacy inventory into its Rendering; bp is the
// blueprint it renders, nil when none can be read.
func (a *LegacyAdopter) AdoptGateway(ctx context.Context, gw client.Object, rec *Record, bp *gatewrightv1alpha1.GatewayClassBlueprint) error {
	if !hasLegacy(gw, LegacyInventoryAnnotation) {
		return nil
	}
	if rec.Exists() {
		// Its annotation is a tenant's writing since the Rendering exists: dropped unread.
		return a.dropLegacy(ctx, gw, LegacyInventoryAnnotation)
	}
	old, err := a.predatesRenderings(ctx, gw, "Gateway")
	if err != nil {
		return err
	}
	if old {
		legacy := DecodeLegacyInventory(gw.GetAnnotations()[LegacyInventoryAnnotation])
		if err := a.adopt(ctx, rec, legacy, bp, GatewayOwner(gw)); err != nil {
			return err
		}
	}
	return a.dropLegacy(ctx, gw, LegacyInventoryAnnotation)
}

// AdoptRoute moves the route's legacy inventories into its Renderings (records, by
// parent Gateway "namespace/name"), one per parent Gateway. blueprints reads the
// blueprint of each parent, by the same key, once the inventories are to be read. The
// entries for the Gateways elsewhere says are another shard's stay in the annotation for
// that shard to move, and the legacy finalizer goes with the last of them.
func (a *LegacyAdopter) AdoptRoute(ctx context.Context, route client.Object, records map[string]*Record, blueprints func() map[string]*gatewrightv1alpha1.GatewayClassBlueprint, elsewhere func(ctx context.Context, gateway string) (bool, error)) error {
	if !hasLegacy(route, LegacyRouteInventoryAnnotation) {
		return nil
	}
	old, err := a.predatesRenderings(ctx, route, "HTTPRoute")
	if err != nil {
		return err
	}
	if !old {
		return a.dropLegacy(ctx, route, LegacyRouteInventoryAnnotation)
	}
	parentBlueprints := blueprints()
	remaining := map[string]Inventory{}
	for key, legacy := range DecodeLegacyRouteInventory(route.GetAnnotations()[LegacyRouteInventoryAnnotation]) {
		theirs, err := elsewhere(ctx, key)
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
			rec = NewRecord(RouteOwner(KindHTTPRoute, route, namespace, name))
		}
		if err := a.adopt(ctx, rec, legacy, parentBlueprints[key], RouteOwner(KindHTTPRoute, route, namespace, name)); err != nil {
			return err
		}
		if rec.Exists() {
			records[key] = rec
		}
	}
	if len(remaining) > 0 {
		original := route.DeepCopyObject().(client.Object)
		encoded, _ := json.Marshal(remaining) // maps of plain structs always marshal
		setAnnotation(route, LegacyRouteInventoryAnnotation, string(encoded))
		return client.IgnoreNotFound(a.Client.Patch(ctx, route, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})))
	}
	return a.dropLegacy(ctx, route, LegacyRouteInventoryAnnotation)
}

// adopt adds to rec the entries of a legacy inventory of owner that check out. Only an
// owner without a Rendering can have one: once it has a Rendering, an annotation is a
// tenant's writing, dropped unread, so that rewriting it cannot make Gatewright read
// thousands of objects again and again.
func (a *LegacyAdopter) adopt(ctx context.Context, rec *Record, legacy Inventory, bp *gatewrightv1alpha1.GatewayClassBlueprint, owner Owner) error {
	if rec.Exists() {
		return nil
	}
	adopted, dropped, err := a.Applier.Adoptable(ctx, owner, legacy, renderableKinds(bp, owner.GVK.Kind), declaredClusterScoped(bp))
	if err != nil {
		return err
	}
	if dropped > 0 {
		log.FromContext(ctx).Info("legacy inventory too long: entries dropped unread", "owner", owner.String(), "dropped", dropped, "limit", LegacyEntryLimit)
		a.Recorder.Eventf(owner.Object, "Warning", "LegacyInventoryTruncated",
			"the legacy inventory lists more than %d objects that may be this %s's: %d dropped unread", LegacyEntryLimit, owner.GVK.Kind, dropped)
	}
	return a.Applier.SaveRecord(ctx, rec, Planned(adopted, rec.Inventory))
}

// predatesRenderings tells whether obj, a Gateway or an HTTPRoute, was created before
// the first Rendering of another owner of its kind in its namespace. Only the controller
// writes Renderings, and only since the upgrade that introduced them, so an owner created
// after one is new and cannot have a legacy inventory, whatever its annotation and
// finalizers say: tenants write those, but creation times only the API server. The
// timestamps count whole seconds; an owner of the same second is not older.
func (a *LegacyAdopter) predatesRenderings(ctx context.Context, obj client.Object, kind string) (bool, error) {
	var list gatewrightv1alpha1.RenderingList
	if err := a.Client.List(ctx, &list, client.InNamespace(obj.GetNamespace()), client.UnsafeDisableDeepCopy); err != nil {
		return false, err
	}
	created := obj.GetCreationTimestamp()
	for i := range list.Items {
		r := &list.Items[i]
		if r.Owner.Kind == kind && r.Owner.UID != obj.GetUID() && !created.Before(&r.CreationTimestamp) {
			return false, nil
		}
	}
	return true, nil
}

// templateKinds finds the kinds and API groups a template names literally, as in
// "kind: ConfigMap" and "apiVersion: apps/v1".
var (
	templateKinds  = regexp.MustCompile(`(?m)^[\s-]*kind:\s*["']?([A-Za-z][A-Za-z0-9]*)`)
	templateGroups = regexp.MustCompile(`(?m)^[\s-]*apiVersion:\s*["']?(?:([a-z0-9.-]+)/)?v[0-9a-z]+`)
)

// renderableKinds tells whether the blueprint's templates for owners of ownerKind (and
// its helpers) can render objects of a kind: the kinds and groups they name literally,
// and the cluster-scoped kinds it declares. Without a blueprint none can.
func renderableKinds(bp *gatewrightv1alpha1.GatewayClassBlueprint, ownerKind string) func(schema.GroupKind) bool {
	kinds, groups := map[string]bool{}, map[string]bool{}
	if bp != nil {
		texts := []string{bp.Spec.Helpers}
		templates := bp.Spec.GatewayTemplate.ResourceTemplates
		if ownerKind == "HTTPRoute" {
			templates = nil
			if bp.Spec.HTTPRouteTemplate != nil {
				templates = bp.Spec.HTTPRouteTemplate.ResourceTemplates
			}
		}
		for _, t := range templates {
			texts = append(texts, t.Template)
		}
		for _, text := range texts {
			for _, m := range templateKinds.FindAllStringSubmatch(text, -1) {
				kinds[m[1]] = true
			}
			for _, m := range templateGroups.FindAllStringSubmatch(text, -1) {
				groups[m[1]] = true
			}
		}
	}
	return func(gk schema.GroupKind) bool {
		return (kinds[gk.Kind] && groups[gk.Group]) || declares(bp, gk)
	}
}

// hasLegacy tells whether obj still carries the legacy annotation key or finalizer.
func hasLegacy(obj client.Object, key string) bool {
	_, annotated := obj.GetAnnotations()[key]
	return annotated || controllerutil.ContainsFinalizer(obj, LegacyFinalizer)
}

// dropLegacy removes the legacy annotation key and finalizer from obj, guarded by its
// resourceVersion so that no other finalizer added meanwhile is lost.
func (a *LegacyAdopter) dropLegacy(ctx context.Context, obj client.Object, key string) error {
	original := obj.DeepCopyObject().(client.Object)
	setAnnotation(obj, key, "")
	controllerutil.RemoveFinalizer(obj, LegacyFinalizer)
	return client.IgnoreNotFound(a.Client.Patch(ctx, obj, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})))
}

// declaredClusterScoped tells whether an entry's kind is one the blueprint declares
// cluster-scoped.
func declaredClusterScoped(bp *gatewrightv1alpha1.GatewayClassBlueprint) func(Entry) bool {
	return func(e Entry) bool {
		return declares(bp, schema.FromAPIVersionAndKind(e.APIVersion, e.Kind).GroupKind())
	}
}

// declares tells whether the blueprint lists gk in clusterScopedKinds; without a
// blueprint it lists none.
func declares(bp *gatewrightv1alpha1.GatewayClassBlueprint, gk schema.GroupKind) bool {
	if bp == nil {
		return false
	}
	for _, k := range bp.Spec.ClusterScopedKinds {
		if string(k.Group) == gk.Group && string(k.Kind) == gk.Kind {
			return true
		}
	}
	return false
}

// setAnnotation sets key to value on obj, or removes it when value is empty.
func setAnnotation(obj client.Object, key, value string) {
	annotations := obj.GetAnnotations()
	if value == "" {
		delete(annotations, key)
	} else {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[key] = value
	}
	obj.SetAnnotations(annotations)
}
