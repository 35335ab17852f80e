package diff

import (
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The markers that stand for a Secret's values in a diff.
const (
	redacted        = "<redacted>"
	redactedChanged = "<redacted, changed>"
)

// redactSecrets returns the two renderings of an object, a Secret's data and stringData
// values replaced by markers that tell, key by key, only whether the value changed:
// the diff shows which keys are added, removed or changed, never a value nor anything
// computed from one. Other objects are returned as they are.
func redactSecrets(was, is *unstructured.Unstructured) (*unstructured.Unstructured, *unstructured.Unstructured) {
	if was.GetKind() != "Secret" || was.GroupVersionKind().Group != "" {
		return was, is
	}
	was, is = was.DeepCopy(), is.DeepCopy()
	for _, field := range []string{"data", "stringData"} {
		old, _ := was.Object[field].(map[string]any)
		now, _ := is.Object[field].(map[string]any)
		for key, value := range now {
			if previous, ok := old[key]; ok && !reflect.DeepEqual(previous, value) {
				now[key] = redactedChanged
			} else {
				now[key] = redacted
			}
		}
		for key := range old {
			old[key] = redacted
		}
	}
	return was, is
}
