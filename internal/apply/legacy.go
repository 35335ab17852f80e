package apply

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Before Renderings, Gatewright kept its inventories in annotations on the Gateway and
// the HTTPRoute, where tenants can write. They are read once, to move what they list into
// Renderings, and every entry is checked against the live object before it is trusted.
const (
	// LegacyInventoryAnnotation listed a Gateway's objects.
	LegacyInventoryAnnotation = "gatewright.dev/inventory"
	// LegacyRouteInventoryAnnotation listed an HTTPRoute's objects by parent Gateway
	// ("namespace/name").
	LegacyRouteInventoryAnnotation = "gatewright.dev/route-inventory"
	// LegacyFinalizer held a Gateway or HTTPRoute until its objects were deleted; the
	// Renderings carry it now.
	LegacyFinalizer = "gatewright.dev/cleanup"
)

// legacyAnnotationLimit: the API server caps all annotations together at 256 KiB, so a
// longer value was not written by Gatewright.
const legacyAnnotationLimit = 256 << 10

// DecodeLegacyInventory reads a Gateway's old inventory annotation. What does not decode
// is no inventory: it was never trusted as is, and the owner's labels on the live objects
// decide what is moved.
func DecodeLegacyInventory(annotation string) Inventory {
	var inv Inventory
	if annotation == "" || len(annotation) > legacyAnnotationLimit || json.Unmarshal([]byte(annotation), &inv) != nil {
		return nil
	}
	inv.sort()
	return inv
}

// DecodeLegacyRouteInventory reads an HTTPRoute's old inventory annotation, by parent
// Gateway ("namespace/name").
func DecodeLegacyRouteInventory(annotation string) map[string]Inventory {
	var byParent map[string]Inventory
	if annotation == "" || len(annotation) > legacyAnnotationLimit || json.Unmarshal([]byte(annotation), &byParent) != nil {
		return nil
	}
	for _, inv := range byParent {
		inv.sort()
	}
	return byParent
}

// LegacyEntryLimit is how many entries of one legacy inventory are read at most: more
// than any blueprint rendered for one owner, few enough that a forged annotation costs
// little. The entries past it are dropped unread.
const LegacyEntryLimit = 256

// Adoptable keeps the entries of a legacy inventory that are the owner's: in its
// namespace, or cluster-scoped of a kind clusterScoped allows; of a kind the blueprint
// can render (renderable); and carrying the owner's labels and the entry's template label
// on the live object. It reads at most LegacyEntryLimit objects, all from the cache:
// only of kinds the blueprint renders, whose informers the apply starts anyway, and in
// the version the cluster prefers rather than the one the entry names, which a tenant
// could make up. The cache holds only objects labelled as Gatewright's, the only ones
// that could check out. It also returns how many entries it dropped over the limit.
// An entry whose object is gone, or whose kind the cluster does not serve, is dropped; any
// other failure to read is returned, so that a passing error does not leave an object out
// of the Rendering and so never pruned.
func (a *Applier) Adoptable(ctx context.Context, owner Owner, legacy Inventory, renderable func(schema.GroupKind) bool, clusterScoped func(Entry) bool) (Inventory, int, error) {
	var candidates Inventory
	for _, e := range legacy {
		inPlace := e.Namespace == owner.Object.GetNamespace() || (e.Namespace == "" && clusterScoped(e))
		if inPlace && renderable(e.groupKind()) {
			candidates = append(candidates, e)
		}
	}
	dropped := 0
	if len(candidates) > LegacyEntryLimit {
		dropped = len(candidates) - LegacyEntryLimit
		candidates = candidates[:LegacyEntryLimit]
	}
	versions := map[schema.GroupKind]string{} // "" for a kind the cluster does not serve
	var out Inventory
	for _, e := range candidates {
		gk := e.groupKind()
		v, known := versions[gk]
		if !known {
			mapping, err := a.client.RESTMapper().RESTMapping(gk)
			switch {
			case err == nil:
				v = mapping.GroupVersionKind.Version
			case !meta.IsNoMatchError(err):
				return nil, dropped, err
			}
			versions[gk] = v
		}
		if v == "" {
			continue
		}
		e.APIVersion = gk.WithVersion(v).GroupVersion().String()
		obj := e.object()
		if err := getUnstructured(ctx, a.client, client.ObjectKeyFromObject(obj), obj); apierrors.IsNotFound(err) {
			continue
		} else if err != nil {
			return nil, dropped, fmt.Errorf("reading %s, which the legacy inventory lists: %w", e, err)
		}
		if owner.owns(obj) && obj.GetLabels()[templateLabel] == e.Template {
			e.Hash = obj.GetAnnotations()[RenderedHashAnnotation]
			out = append(out, e)
		}
	}
	return out, dropped, nil
}
