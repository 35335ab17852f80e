package ctrlutil

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// KindScopes remembers whether each kind is namespaced, as the cluster's REST mapper
// says. A renderer asks for every object it places, and the mapper, though it caches
// its discovery, allocates a few kilobytes for every answer. A kind's scope cannot
// change under a running controller: a CRD's spec.scope is immutable, and the mapper
// would not see a CRD deleted and created again with another scope either.
type KindScopes struct {
	Client     client.Client
	namespaced sync.Map // schema.GroupVersionKind -> bool
}

// IsNamespaced tells whether objects of kind gvk are namespaced.
func (s *KindScopes) IsNamespaced(gvk schema.GroupVersionKind) (bool, error) {
	if namespaced, ok := s.namespaced.Load(gvk); ok {
		return namespaced.(bool), nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	namespaced, err := s.Client.IsObjectNamespaced(obj)
	if err != nil {
		return false, err // a kind not served yet is asked again
	}
	s.namespaced.Store(gvk, namespaced)
	return namespaced, nil
}
