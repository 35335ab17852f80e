package diff

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatewright/gatewright/internal/translate"
)

type objectKey struct{ apiVersion, kind, namespace, name string }

func keyOf(obj *unstructured.Unstructured) objectKey {
	return objectKey{obj.GetAPIVersion(), obj.GetKind(), obj.GetNamespace(), obj.GetName()}
}

// objectChanges compares the objects two results render. When the new result has an
// error, the controller applies nothing and prunes nothing: the objects applied before
// are left as they are, so no object changes. Where the Gateway or route is gone, its
// objects are pruned. An old result with an error stands for objects unknown, taken as
// none: the new objects are created.
func objectChanges(old, now *translate.Result) []ObjectChange {
	if now != nil && now.Err != nil {
		return []ObjectChange{}
	}
	before, after := objectsOf(old), objectsOf(now)
	out := []ObjectChange{}
	for key, was := range before {
		is, ok := after[key]
		switch {
		case !ok:
			out = append(out, change(Prune, key, ""))
		case !reflect.DeepEqual(was.Object, is.Object):
			out = append(out, change(Update, key, unifiedDiff(was, is)))
		}
	}
	for key := range after {
		if _, ok := before[key]; !ok {
			out = append(out, change(Create, key, ""))
		}
	}
	slices.SortFunc(out, func(a, b ObjectChange) int {
		return cmp.Or(cmp.Compare(a.APIVersion, b.APIVersion), cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

func change(action string, key objectKey, diff string) ObjectChange {
	return ObjectChange{Action: action, APIVersion: key.apiVersion, Kind: key.kind, Namespace: key.namespace, Name: key.name, Diff: diff}
}

// objectsOf are the objects res renders, by key; none when it renders nothing.
func objectsOf(res *translate.Result) map[objectKey]*unstructured.Unstructured {
	if res == nil || res.Err != nil || res.Output == nil {
		return nil
	}
	out := make(map[objectKey]*unstructured.Unstructured, len(res.Output.Objects))
	for _, obj := range res.Output.Objects {
		out[keyOf(obj)] = obj
	}
	return out
}

// unifiedDiff is the unified diff of the YAML of two renderings of an object, Secret
// data redacted.
func unifiedDiff(was, is *unstructured.Unstructured) string {
	was, is = redactSecrets(was, is)
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: slices.Collect(strings.Lines(yamlText(was))), B: slices.Collect(strings.Lines(yamlText(is))),
		FromFile: "old", ToFile: "new", Context: 3,
	})
	if err != nil {
		return err.Error() // the writer is a strings.Builder, which does not fail
	}
	return diff
}

// yamlText is the object as YAML, keys sorted, indented by two spaces.
func yamlText(obj *unstructured.Unstructured) string {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(obj.Object); err != nil {
		return err.Error() // rendered objects come from YAML and encode again
	}
	return b.String()
}
