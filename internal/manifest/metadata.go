package manifest

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// Label is obj's label key, or "" when it has none or it is not a string. It reads the
// one value: GetLabels copies every label, once per call, which the controller's hot
// paths did several times per object.
func Label(obj *unstructured.Unstructured, key string) string {
	value, _ := metadataString(obj, "labels", key)
	return value
}

// Annotation is obj's annotation key, and whether it has it, as Label reads a label.
func Annotation(obj *unstructured.Unstructured, key string) (string, bool) {
	return metadataString(obj, "annotations", key)
}

func metadataString(obj *unstructured.Unstructured, field, key string) (string, bool) {
	metadata, _ := obj.Object["metadata"].(map[string]any)
	values, _ := metadata[field].(map[string]any)
	value, ok := values[key].(string)
	return value, ok
}
