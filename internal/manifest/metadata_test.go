package manifest

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestLabelAndAnnotationReadOneValue(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{
		"labels":      map[string]any{"tier": "edge", "empty": ""},
		"annotations": map[string]any{"hash": "abc", "count": int64(3)},
	}}}
	for _, c := range []struct{ name, got, want string }{
		{"a label", Label(obj, "tier"), "edge"},
		{"an empty label", Label(obj, "empty"), ""},
		{"a missing label", Label(obj, "absent"), ""},
		{"no labels at all", Label(&unstructured.Unstructured{Object: map[string]any{}}, "tier"), ""},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
	if value, ok := Annotation(obj, "hash"); value != "abc" || !ok {
		t.Errorf("annotation hash: %q, %v; want abc, true", value, ok)
	}
	if value, ok := Annotation(obj, "absent"); value != "" || ok {
		t.Errorf("a missing annotation: %q, %v; want \"\", false", value, ok)
	}
	// A value that is not a string is no annotation, as for GetAnnotations.
	if value, ok := Annotation(obj, "count"); value != "" || ok {
		t.Errorf("an annotation that is a number: %q, %v; want \"\", false", value, ok)
	}
	// Reading does not change the object.
	if obj.GetLabels()["tier"] != "edge" || len(obj.Object["metadata"].(map[string]any)) != 2 {
		t.Errorf("the object changed: %v", obj.Object)
	}
}
