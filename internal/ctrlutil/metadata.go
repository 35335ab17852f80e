package ctrlutil

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Metadata is the metadata-only form of an object of kind gvk.
func Metadata(gvk schema.GroupVersionKind) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(gvk)
	return m
}

// NewMetadataCache is a cache of its own, started with mgr, for the identity of the
// objects of one kind (obj, a Metadata) that by selects: whether they exist, and their
// resourceVersion. The manager's cache cannot hold them: its ByObject settings apply per
// GVK, whatever the Go type, so an entry that let the metadata informer see every object
// of a kind would let the informer of the objects of that kind a controller writes
// (unstructured, and selected by label) cache every body too.
func NewMetadataCache(mgr ctrl.Manager, obj *metav1.PartialObjectMetadata, by cache.ByObject) (cache.Cache, error) {
	by.Transform = KeepIdentity
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient: mgr.GetHTTPClient(),
		Scheme:     mgr.GetScheme(),
		Mapper:     mgr.GetRESTMapper(),
		ByObject:   map[client.Object]cache.ByObject{obj: by},
	})
	if err != nil {
		return nil, err
	}
	return c, mgr.Add(c)
}

// KeepIdentity strips an object down to what tells it apart and says when it changed:
// no labels, annotations or managed fields, which may quote what the object holds
// (kubectl apply's last-applied annotation holds the whole object).
func KeepIdentity(obj any) (any, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	identity := metav1.ObjectMeta{Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID(), ResourceVersion: m.GetResourceVersion()}
	out := &metav1.PartialObjectMetadata{ObjectMeta: identity}
	if typed, ok := obj.(*metav1.PartialObjectMetadata); ok {
		out.TypeMeta = typed.TypeMeta
	}
	return out, nil
}
