package ctrlutil

import (
	"encoding/json"

	jsonpatch "github.com/evanphx/json-patch/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// statusPatch is the JSON merge patch from an object with status original to one with
// status current, all else equal: what client.MergeFrom computes from copies of the
// whole object, without encoding and comparing the rest of it. With a resourceVersion
// it carries it as an optimistic lock, as client.MergeFromWithOptimisticLock does.
func statusPatch(original, current any, resourceVersion string) client.Patch {
	return statusMerge{original: original, current: current, resourceVersion: resourceVersion}
}

type statusMerge struct {
	original, current any
	resourceVersion   string
}

func (statusMerge) Type() types.PatchType { return types.MergePatchType }

func (p statusMerge) Data(client.Object) ([]byte, error) {
	original, err := json.Marshal(map[string]any{"status": p.original})
	if err != nil {
		return nil, err
	}
	current, err := json.Marshal(map[string]any{"status": p.current})
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.CreateMergePatch(original, current)
	if err != nil || p.resourceVersion == "" {
		return patch, err
	}
	var fields map[string]any
	if err := json.Unmarshal(patch, &fields); err != nil {
		return nil, err
	}
	fields["metadata"] = map[string]any{"resourceVersion": p.resourceVersion}
	return json.Marshal(fields)
}

// answeredWithMetadata names obj, of kind gvk, for a write answered with its metadata
// alone (in protobuf), not the whole object in JSON: nothing reads a written status back,
// and encoding and decoding it was a good part of both sides' work for every write.
func answeredWithMetadata(gvk schema.GroupVersionKind, obj client.Object) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(gvk)
	m.Namespace, m.Name = obj.GetNamespace(), obj.GetName()
	return m
}
