package apply

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatewright/gatewright/internal/manifest"
)

// The controller's cache holds every object Gatewright manages, and every object a
// tenant labels as Gatewright's. Held whole, a blueprint that hands a proxy its
// configuration in a ConfigMap costs the controller the configuration's bytes once per
// Gateway: 300 Gateways of 1 MiB of values outgrow a 512 MiB limit. So the cache holds
// no content Gatewright does not judge: StripContent replaces it with a hash, and
// matches compares the rendered object's content with that hash. What is left (metadata,
// status, the spec of small objects) is what readiness and kstatus read; a template that
// reads .Resources, or a readyWhen, gets the object whole from the API server
// (Record.ReadsWhole).

// ContentHashAnnotation, on a cached object, is the hash of the content StripContent
// took out of it. Only the cache's copy carries it: an object read from the API server
// never counts as stripped, whatever its annotations say (forgetContentHash).
const ContentHashAnnotation = "gatewright.dev/cached-content-hash"

// StripAbove is the size (bytes of JSON) above which an object's content is stripped
// from the cache. Smaller objects stay whole: the usual ConfigMaps, Secrets and custom
// resources are compared field by field as before, and a template reading .Resources
// gets them from the cache rather than by a GET at each render. A stripped custom object
// whose spec the API server defaults is applied again at each reconcile of its owner
// (a request that changes nothing, and writes nothing).
const StripAbove = 16 << 10

// StripContent takes the content out of obj, as the cache is about to hold it, when it
// is over StripAbove: the data of a ConfigMap or a Secret, and every top-level field but
// apiVersion, kind, metadata and status of an unstructured object. The content's
// hash replaces it (ContentHashAnnotation). Metadata over StripAbove is cut to what
// Gatewright reads of it (stripMetadata). Other objects are left as they are.
func StripContent(obj any) {
	if m, ok := obj.(objectMeta); ok {
		// Only the stripping below may say an object is stripped: one a tenant wrote on
		// the object would pass changed content off as the rendered one.
		if annotations := m.GetAnnotations(); annotations[ContentHashAnnotation] != "" {
			delete(annotations, ContentHashAnnotation)
			m.SetAnnotations(annotations)
		}
	}
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		if raw, _ := json.Marshal(configMapContent(o.Data, o.BinaryData)); len(raw) > StripAbove {
			o.Data, o.BinaryData = nil, nil
			setContentHash(&o.ObjectMeta, hashBytes(raw))
		}
		stripMetadata(o)
	case *corev1.Secret:
		if raw, _ := json.Marshal(secretContent(o.Data)); len(raw) > StripAbove {
			o.Data, o.StringData = nil, nil
			setContentHash(&o.ObjectMeta, hashBytes(raw))
		}
		stripMetadata(o)
	case *unstructured.Unstructured:
		stripUnstructuredContent(o)
		stripMetadata(o)
	}
}

func stripUnstructuredContent(o *unstructured.Unstructured) {
	content := unstructuredContent(o.Object)
	if len(content) == 0 {
		return
	}
	raw, _ := json.Marshal(content) // decoded from JSON: encodes again
	if len(raw) <= StripAbove {
		return
	}
	for key := range content {
		delete(o.Object, key)
	}
	setContentHash(o, hashBytes(raw))
}

type objectMeta interface {
	GetAnnotations() map[string]string
	SetAnnotations(map[string]string)
}

func setContentHash(m objectMeta, hash string) {
	annotations := m.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[ContentHashAnnotation] = hash
	m.SetAnnotations(annotations)
}

// forgetContentHash drops the annotation from an object read from the API server: only
// the cache's copies are stripped, and a tenant who sets it must not pass a changed
// object off as one.
func forgetContentHash(obj *unstructured.Unstructured) {
	annotations := obj.GetAnnotations()
	if _, ok := annotations[ContentHashAnnotation]; !ok {
		return
	}
	delete(annotations, ContentHashAnnotation)
	obj.SetAnnotations(annotations)
}

// stripped tells whether live is a cache copy without its content.
func stripped(live *unstructured.Unstructured) (string, bool) {
	return manifest.Annotation(live, ContentHashAnnotation)
}

// renderedContent is the content of rendered that StripContent would take out of the
// object the API server makes of it, in the same form, and the rest of rendered.
func renderedContent(rendered *unstructured.Unstructured) (content map[string]any, rest map[string]any) {
	rest = make(map[string]any, len(rendered.Object))
	for k, v := range rendered.Object {
		rest[k] = v
	}
	if rendered.GetAPIVersion() == "v1" {
		switch rendered.GetKind() {
		case "ConfigMap":
			delete(rest, "data")
			delete(rest, "binaryData")
			data, _ := rendered.Object["data"].(map[string]any)
			binary, _ := rendered.Object["binaryData"].(map[string]any)
			return configMapContent(data, binary), rest
		case "Secret":
			delete(rest, "data")
			delete(rest, "stringData")
			return secretContent(renderedSecretData(rendered)), rest
		}
	}
	content = unstructuredContent(rendered.Object)
	for key := range content {
		delete(rest, key)
	}
	return content, rest
}

// renderedSecretData is the data the API server keeps of a rendered Secret: data, with
// stringData's keys encoded and written over it.
func renderedSecretData(rendered *unstructured.Unstructured) map[string]any {
	data, _ := rendered.Object["data"].(map[string]any)
	strings, _ := rendered.Object["stringData"].(map[string]any)
	if len(strings) == 0 {
		return data
	}
	out := make(map[string]any, len(data)+len(strings))
	for k, v := range data {
		out[k] = v
	}
	for k, v := range strings {
		s, _ := v.(string)
		out[k] = base64.StdEncoding.EncodeToString([]byte(s))
	}
	return out
}

// configMapContent and secretContent put the content in one form whichever side it
// comes from: maps of strings (or of []byte, which JSON writes as the base64 the
// rendered object has), empty ones left out.
func configMapContent[D, B any](data map[string]D, binary map[string]B) map[string]any {
	content := map[string]any{}
	if len(data) > 0 {
		content["data"] = data
	}
	if len(binary) > 0 {
		content["binaryData"] = binary
	}
	return content
}

func secretContent[D any](data map[string]D) map[string]any {
	content := map[string]any{}
	if len(data) > 0 {
		content["data"] = data
	}
	return content
}

// unstructuredContent is what StripContent may take out of an unstructured object.
func unstructuredContent(object map[string]any) map[string]any {
	content := map[string]any{}
	for key, value := range object {
		switch key {
		case "apiVersion", "kind", "metadata", "status":
		default:
			content[key] = value
		}
	}
	return content
}

func hashContent(content map[string]any) string {
	raw, _ := json.Marshal(content) // strings, bytes and decoded JSON: always encodes
	return hashBytes(raw)
}

func hashBytes(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:16])
}
