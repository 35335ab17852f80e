package fairness

import (
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// NamespaceBytes bounds what the Gateways and routes of one namespace hold together, so
// that no tenant's namespace takes more than its share of etcd. It adds up, per
// namespace, the RenderedBytes that each owner's record holds (part 0 of its Renderings:
// a Gateway's, or a route's on one parent Gateway, in the owner's namespace), from the
// Renderings the cache sees: it is right from the controller's start, before any owner
// is reconciled again, and it counts what etcd holds, the objects a refused owner keeps
// included. A route is charged to its own namespace, never to its Gateway's.
type NamespaceBytes struct {
	limit int64
	mu    sync.Mutex
	// owners holds the bytes of each owner, by namespace.
	owners map[string]map[Owner]int64
	// refused holds the owners refused, by namespace: when an owner of their namespace
	// holds fewer bytes, or goes, they are tried again (through retries, by kind).
	refused map[string]map[Owner]bool
	retries map[string]chan event.GenericEvent
}

// Owner is what a Rendering's objects were rendered for, in the Rendering's namespace:
// a Gateway, or a route on one parent Gateway.
type Owner struct {
	Kind, Name                    string
	GatewayNamespace, GatewayName string
}

// OwnerOf is the owner a Rendering records, whatever its UID: a Gateway or route
// created again under the same name holds the same place.
func OwnerOf(o gatewrightv1alpha1.RenderingOwner) Owner {
	return Owner{Kind: o.Kind, Name: o.Name, GatewayNamespace: o.GatewayNamespace, GatewayName: o.GatewayName}
}

// NewNamespaceBytes bounds each namespace's Gateways and routes to limit bytes together.
func NewNamespaceBytes(limit int64) *NamespaceBytes {
	return &NamespaceBytes{
		limit: limit, owners: map[string]map[Owner]int64{}, refused: map[string]map[Owner]bool{},
		retries: map[string]chan event.GenericEvent{},
	}
}

// Source brings the refused owners of kind (Gateway, HTTPRoute) back when room is made
// in their namespace. Call it for every kind before the cache starts.
func (n *NamespaceBytes) Source(kind string) source.Source {
	n.mu.Lock()
	defer n.mu.Unlock()
	retries := make(chan event.GenericEvent, 64)
	n.retries[kind] = retries
	return source.Channel(retries, &handler.EnqueueRequestForObject{})
}

// Watch keeps the sums as the Renderings of informer, the cache's, change.
func (n *NamespaceBytes) Watch(informer cache.Informer) error {
	_, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { n.recorded(obj, false) },
		UpdateFunc: func(_, obj any) { n.recorded(obj, false) },
		DeleteFunc: func(obj any) { n.recorded(obj, true) },
	})
	return err
}

// recorded takes in a Rendering the cache added, changed or deleted: part 0 of an
// owner's record says the owner's bytes.
func (n *NamespaceBytes) recorded(obj any, deleted bool) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	r, ok := obj.(*gatewrightv1alpha1.Rendering)
	if !ok || r.Part != 0 {
		return
	}
	bytes := r.RenderedBytes
	if deleted {
		bytes = 0
	}
	owner := OwnerOf(r.Owner)
	n.mu.Lock()
	before := n.owners[r.Namespace][owner]
	n.set(r.Namespace, owner, bytes)
	var retry []Owner
	if bytes < before {
		for refused := range n.refused[r.Namespace] {
			retry = append(retry, refused)
		}
		delete(n.refused, r.Namespace)
	}
	n.mu.Unlock()
	if len(retry) > 0 {
		go n.retry(r.Namespace, retry) // never block the informer
	}
}

func (n *NamespaceBytes) retry(namespace string, owners []Owner) {
	n.mu.Lock()
	retries := maps.Clone(n.retries)
	n.mu.Unlock()
	for _, owner := range owners {
		if ch, ok := retries[owner.Kind]; ok {
			obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: owner.Name}}
			ch <- event.GenericEvent{Object: obj}
		}
	}
}

func (n *NamespaceBytes) set(namespace string, owner Owner, bytes int64) {
	owners := n.owners[namespace]
	if bytes == 0 {
		delete(owners, owner)
		if len(owners) == 0 {
			delete(n.owners, namespace)
		}
		return
	}
	if owners == nil {
		owners = map[Owner]int64{}
		n.owners[namespace] = owners
	}
	owners[owner] = bytes
}

// Admit tells whether owner, of namespace, may hold bytes: when it holds no more than
// its record says (previous), or the namespace's owners stay within the limit. An
// admitted owner counts with bytes at once, so that two owners reconciled together do
// not both pass; its record's next write says the same. A refusal names the bound and
// the sum, never another owner (its reader may not read them).
func (n *NamespaceBytes) Admit(namespace string, owner Owner, previous, bytes int64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	sum := bytes
	for other, b := range n.owners[namespace] {
		if other != owner {
			sum += b
		}
	}
	if bytes > previous && sum > n.limit {
		if n.refused[namespace] == nil {
			n.refused[namespace] = map[Owner]bool{}
		}
		n.refused[namespace][owner] = true
		return fmt.Errorf("the render holds %d bytes (objects and values, as JSON): with the other Gateways and routes of namespace %s, %d bytes, over the controller's --max-rendered-bytes-per-namespace of %d; the objects applied before stay as they are", bytes, namespace, sum, n.limit)
	}
	delete(n.refused[namespace], owner)
	n.set(namespace, owner, bytes)
	return nil
}

// RenderedBytes is the size of a render: the bytes of JSON of its objects and of its
// effective values.
func RenderedBytes(objs []*unstructured.Unstructured, values map[string]any) int64 {
	var size int64
	for _, obj := range objs {
		raw, _ := json.Marshal(obj.Object) // rendered objects are JSON already
		size += int64(len(raw))
	}
	raw, _ := json.Marshal(values) // values decoded from JSON always encode again
	return size + int64(len(raw))
}
