package apply

import (
	"encoding/json"
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
