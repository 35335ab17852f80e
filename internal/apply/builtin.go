package apply

import (
	"context"
	"encoding/json"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Objects of the kinds Kubernetes builds in (ConfigMap, Secret, Service, Deployment, ...)
// are read as their Go types, everything else as unstructured. The cache then watches
// those kinds in protobuf and holds them as structs: a fraction of the CPU and memory of
// maps decoded from JSON, for what are most of the objects a blueprint renders. Gatewright
// still compares and hands to templates the unstructured form.

// CachedObject is the object whose cache holds the objects of gvk: a typed object of a
// built-in kind, otherwise an unstructured one. Watches of rendered objects use it, so
// that they share the informer the Applier reads from.
func CachedObject(gvk schema.GroupVersionKind) client.Object {
	if typed := builtinObject(gvk); typed != nil {
		return typed
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	return obj
}

// builtinObject is an empty object of gvk's Go type when gvk is a built-in kind, else nil.
func builtinObject(gvk schema.GroupVersionKind) client.Object {
	if !clientgoscheme.Scheme.Recognizes(gvk) {
		return nil
	}
	obj, err := clientgoscheme.Scheme.New(gvk)
	if err != nil {
		return nil
	}
	typed, _ := obj.(client.Object) // nil for the few list and option kinds
	return typed
}

// applyPatch server-side applies obj, with resourceVersion as a precondition unless it
// is "", and returns the object as the API server has it now; obj is left as rendered.
// The answer for a built-in kind is decoded from protobuf into its Go type (the request
// is the same JSON apply either way), without the managed fields that a JSON answer
// would carry into maps: they are as large as the rest of a small object.
func (a *Applier) applyPatch(ctx context.Context, obj *unstructured.Unstructured, resourceVersion string) (*unstructured.Unstructured, error) {
	gvk := obj.GroupVersionKind()
	typed := builtinObject(gvk)
	if typed == nil {
		// The client decodes the answer into what it applies.
		applied := obj.DeepCopy()
		applied.SetResourceVersion(resourceVersion)
		err := a.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(applied), client.FieldOwner(FieldManager), client.ForceOwnership)
		return applied, err
	}
	body, err := json.Marshal(withResourceVersion(obj.Object, resourceVersion))
	if err != nil {
		return nil, err
	}
	typed.SetNamespace(obj.GetNamespace())
	typed.SetName(obj.GetName())
	if err := a.client.Patch(ctx, typed, client.RawPatch(types.ApplyPatchType, body), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return nil, err
	}
	typed.SetManagedFields(nil)
	return toUnstructured(typed, gvk)
}

// withResourceVersion is content with metadata.resourceVersion set (removed for ""),
// sharing everything but the two maps it changes.
func withResourceVersion(content map[string]any, resourceVersion string) map[string]any {
	metadata, _ := content["metadata"].(map[string]any)
	metadata = maps.Clone(metadata)
	if metadata == nil {
		metadata = map[string]any{}
	}
	delete(metadata, "resourceVersion")
	if resourceVersion != "" {
		metadata["resourceVersion"] = resourceVersion
	}
	out := maps.Clone(content)
	out["metadata"] = metadata
	return out
}

// getUnstructured reads the object of key and obj's kind into obj, through its typed
// form when the kind is built in (CachedObject).
func getUnstructured(ctx context.Context, reader client.Reader, key client.ObjectKey, obj *unstructured.Unstructured) error {
	gvk := obj.GroupVersionKind()
	typed := builtinObject(gvk)
	if typed == nil {
		return reader.Get(ctx, key, obj)
	}
	if err := reader.Get(ctx, key, typed); err != nil {
		return err
	}
	read, err := toUnstructured(typed, gvk)
	if err != nil {
		return err
	}
	obj.Object = read.Object
	return nil
}

func toUnstructured(typed client.Object, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: content}
	obj.SetGroupVersionKind(gvk)
	return obj, nil
}
