package apply

import (
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/manifest"
)

// Entry identifies one applied object, the template that rendered it, its rendered hash
// and whether it was ready when last looked at.
type Entry struct {
	APIVersion string `json:"v"`
	Kind       string `json:"k"`
	Namespace  string `json:"ns,omitempty"`
	Name       string `json:"n"`
	Template   string `json:"t,omitempty"`
	Hash       string `json:"-"`
	Ready      bool   `json:"-"`
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

// templateLabel names the template an object came from.
const templateLabel = gatewrightv1alpha1.LabelTemplate

// Inventory is a sorted list of entries.
type Inventory []Entry

// entryOf is the entry of one object.
func entryOf(obj *unstructured.Unstructured) Entry {
	return Entry{
		APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(),
		Namespace: obj.GetNamespace(), Name: obj.GetName(),
		Template: manifest.Label(obj, templateLabel),
		Hash:     renderedHash(obj),
	}
}

func (inv Inventory) sort() {
	sort.Slice(inv, func(i, j int) bool { return inv[i].key() < inv[j].key() })
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

// Covers tells whether every entry of other is in inv, with the same rendered hash.
func (inv Inventory) Covers(other Inventory) bool {
	hashes := make(map[string]string, len(inv))
	for _, e := range inv {
		hashes[e.key()] = e.Hash
	}
	for _, e := range other {
		if hash, ok := hashes[e.key()]; !ok || hash != e.Hash {
			return false
		}
	}
	return true
}
