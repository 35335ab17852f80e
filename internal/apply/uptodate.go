package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatewright/gatewright/internal/manifest"
)

// RenderedHashAnnotation holds a hash of the object as rendered. A field the template
// stopped rendering changes the hash, where comparing fields alone would not notice.
const RenderedHashAnnotation = "gatewright.dev/rendered-hash"

func stampRenderedHash(obj *unstructured.Unstructured) {
	annotations := obj.GetAnnotations()
	delete(annotations, RenderedHashAnnotation)
	if len(annotations) == 0 {
		annotations = nil // as rendered: no annotations, not an empty map, or stamping twice would differ
	}
	obj.SetAnnotations(annotations)
	data, _ := json.Marshal(obj.Object) // rendered objects are JSON already
	sum := sha256.Sum256(data)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[RenderedHashAnnotation] = hex.EncodeToString(sum[:16])
	obj.SetAnnotations(annotations)
}

// matches tells whether live is as rendered: the same rendered hash, and every field of
// rendered present in live with the same value (so a changed field, drift, does not
// match). Fields only live has, such as defaults and status, do not matter. A live
// object the cache holds without its content (StripContent) matches when the rendered
// content has the hash of the content the API server holds.
// renderedHash is obj's rendered-hash annotation.
func renderedHash(obj *unstructured.Unstructured) string {
	hash, _ := manifest.Annotation(obj, RenderedHashAnnotation)
	return hash
}

func matches(live, rendered *unstructured.Unstructured) bool {
	if renderedHash(live) != renderedHash(rendered) {
		return false
	}
	hash, ok := stripped(live)
	if !ok {
		return contains(live.Object, rendered.Object)
	}
	content, rest := renderedContent(rendered)
	return hashContent(content) == hash && contains(live.Object, rest)
}

func contains(live, rendered any) bool {
	switch r := rendered.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok {
			return false
		}
		for key, value := range r {
			if !contains(l[key], value) {
				return false
			}
		}
		return true
	case []any:
		l, ok := live.([]any)
		if !ok || len(l) != len(r) {
			return false
		}
		for i := range r {
			if !contains(l[i], r[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(live, rendered)
	}
}

// RenderedDigest is a digest of what applying objs for the record's owner writes that
// the API server may refuse: each object as the apply writes it (stamped with its owner
// and its rendered hash, in place, as the apply stamps it again), and the values the
// record holds. The same render gives the same digest before its apply and after.
func (r *Record) RenderedDigest(objs []*unstructured.Unstructured) string {
	h := sha256.New()
	h.Write([]byte(r.ValuesHash))
	for _, obj := range objs {
		setOwnerReference(r.owner, obj)
		stampRenderedHash(obj)
		h.Write([]byte{'\n'})
		h.Write([]byte(renderedHash(obj)))
	}
	return hex.EncodeToString(h.Sum(nil))
}
