package apply

import (
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// InventoryAnnotation on a Gateway or HTTPRoute lists the objects Gatewright applied
// for it, so that pruning and clean-up survive restarts and blueprint edits.
const InventoryAnnotation = "gatewright.dev/inventory"

// Entry identifies one applied object, and the template that rendered it.
type Entry struct {
	APIVersion string `json:"v"`
	Kind       string `json:"k"`
	Namespace  string `json:"ns,omitempty"`
	Name       string `json:"n"`
	Template   string `json:"t,omitempty"`
}

func (e Entry) groupKind() schema.GroupKind {
	return schema.FromAPIVersionAndKind(e.APIVersion, e.Kind).GroupKind()
}

// key identifies the object regardless of its API version.
func (e Entry) key() string {
	gk := e.groupKind()
	return gk.Kind + "." + gk.Group + "/" + e.Namespace + "/" + e.Name
}

func (e Entry) String() string {
	if e.Namespace == "" {
		return e.Kind + " " + e.Name
	}
	return e.Kind + " " + e.Namespace + "/" + e.Name
}

func (e Entry) object() *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(e.APIVersion)
	obj.SetKind(e.Kind)
	obj.SetNamespace(e.Namespace)
	obj.SetName(e.Name)
	return obj
}

// Inventory is a sorted list of entries.
type Inventory []Entry

// InventoryOf lists objects.
func InventoryOf(objs []*unstructured.Unstructured) Inventory {
	inv := make(Inventory, 0, len(objs))
	for _, obj := range objs {
		inv = append(inv, Entry{
			APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(),
			Namespace: obj.GetNamespace(), Name: obj.GetName(),
			Template: obj.GetLabels()[gatewrightv1alpha1.LabelTemplate],
		})
	}
	inv.sort()
	return inv
}

func (inv Inventory) sort() {
	sort.Slice(inv, func(i, j int) bool { return inv[i].key() < inv[j].key() })
}

// Encode writes the inventory for the annotation.
func (inv Inventory) Encode() string {
	if len(inv) == 0 {
		return ""
	}
	data, _ := json.Marshal(inv) // a slice of plain structs always marshals
	return string(data)
}

// DecodeInventory reads the annotation. An empty annotation is an empty inventory.
func DecodeInventory(annotation string) (Inventory, error) {
	var inv Inventory
	if annotation == "" {
		return inv, nil
	}
	if err := json.Unmarshal([]byte(annotation), &inv); err != nil {
		return nil, fmt.Errorf("annotation %s: %w", InventoryAnnotation, err)
	}
	inv.sort()
	return inv, nil
}

// Without returns the entries of inv that are not in other.
func (inv Inventory) Without(other Inventory) Inventory {
	present := make(map[string]bool, len(other))
	for _, e := range other {
		present[e.key()] = true
	}
	var out Inventory
	for _, e := range inv {
		if !present[e.key()] {
			out = append(out, e)
		}
	}
	return out
}

// Union returns the entries of both, once each, sorted.
func (inv Inventory) Union(other Inventory) Inventory {
	out := append(Inventory{}, inv...)
	out = append(out, other.Without(inv)...)
	out.sort()
	return out
}

// RouteInventoryAnnotation on an HTTPRoute lists, per parent Gateway
// ("namespace/name"), the objects Gatewright applied for the route on that Gateway.
const RouteInventoryAnnotation = "gatewright.dev/route-inventory"

// RouteInventory holds an HTTPRoute's inventories by parent Gateway.
type RouteInventory map[string]Inventory

// Encode writes the route inventory for the annotation; keys come out sorted.
func (ri RouteInventory) Encode() string {
	if len(ri) == 0 {
		return ""
	}
	data, _ := json.Marshal(ri) // maps of plain structs always marshal
	return string(data)
}

// DecodeRouteInventory reads the annotation. An empty annotation is an empty inventory.
func DecodeRouteInventory(annotation string) (RouteInventory, error) {
	ri := RouteInventory{}
	if annotation == "" {
		return ri, nil
	}
	if err := json.Unmarshal([]byte(annotation), &ri); err != nil {
		return nil, fmt.Errorf("annotation %s: %w", RouteInventoryAnnotation, err)
	}
	for _, inv := range ri {
		inv.sort()
	}
	return ri, nil
}
