package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// DefaultMaxRenderedBytesPerNamespace bounds what the Gateways of one namespace hold
// together: the bytes of JSON of their rendered objects and of their effective values.
// Whatever the controller's cache holds of them (apply.StripContent), etcd holds them
// whole, as many times as there are Gateways: a tenant's 300-byte Gateway may carry a
// blueprint's megabyte of configuration. 256 MiB is some 6,000 times what a Gateway of
// the benchmark's fleets holds (about 4 KiB), and 40 times the ConfigMap of a Gateway of
// 5,000 routes; an etcd of the default 2 GiB quota holds eight such namespaces.
const DefaultMaxRenderedBytesPerNamespace = 256 << 20

// ReasonNamespaceBytes is the reason of Programmed=False on a Gateway whose render would
// take its namespace's Gateways past --max-rendered-bytes-per-namespace.
const ReasonNamespaceBytes = "RenderedBytesPerNamespaceExceeded"

// namespaceBytes adds up, per namespace, the RenderedBytes that each Gateway's record
// holds (part 0 of its Renderings), from the Renderings the cache sees: it is right
// from the controller's start, before any Gateway is reconciled again, and it counts
// what etcd holds, the objects a refused Gateway keeps included.
type namespaceBytes struct {
	limit int64
	mu    sync.Mutex
	// gateways holds the bytes of each Gateway, by namespace and name.
	gateways map[string]map[string]int64
	// refused holds the Gateways refused, by namespace and name: when a Gateway of
	// their namespace holds fewer bytes, or goes, they are tried again (retries).
	refused map[string]map[string]bool
	retries chan event.GenericEvent
}

func newNamespaceBytes(limit int64) *namespaceBytes {
	if limit <= 0 {
		limit = DefaultMaxRenderedBytesPerNamespace
	}
	return &namespaceBytes{
		limit: limit, gateways: map[string]map[string]int64{}, refused: map[string]map[string]bool{},
		retries: make(chan event.GenericEvent, 64),
	}
}

// source brings the refused Gateways of a namespace back when room is made in it.
func (n *namespaceBytes) source() source.Source {
	return source.Channel(n.retries, &handler.EnqueueRequestForObject{})
}

// watch keeps the sums as the cache's Renderings change.
func (n *namespaceBytes) watch(ctx context.Context, mgr ctrl.Manager) error {
	informer, err := mgr.GetCache().GetInformer(ctx, &gatewrightv1alpha1.Rendering{})
	if err != nil {
		return err
	}
	_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { n.recorded(obj, false) },
		UpdateFunc: func(_, obj any) { n.recorded(obj, false) },
		DeleteFunc: func(obj any) { n.recorded(obj, true) },
	})
	return err
}

// recorded takes in a Rendering the cache added, changed or deleted: part 0 of a
// Gateway's record says the Gateway's bytes.
func (n *namespaceBytes) recorded(obj any, deleted bool) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	r, ok := obj.(*gatewrightv1alpha1.Rendering)
	if !ok || r.Owner.Kind != "Gateway" || r.Part != 0 {
		return
	}
	bytes := r.RenderedBytes
	if deleted {
		bytes = 0
	}
	n.mu.Lock()
	before := n.gateways[r.Namespace][r.Owner.Name]
	n.set(r.Namespace, r.Owner.Name, bytes)
	var retry []string
	if bytes < before {
		for name := range n.refused[r.Namespace] {
			retry = append(retry, name)
		}
		delete(n.refused, r.Namespace)
	}
	n.mu.Unlock()
	if len(retry) > 0 {
		go n.retry(r.Namespace, retry) // never block the informer
	}
}

func (n *namespaceBytes) retry(namespace string, names []string) {
	for _, name := range names {
		gw := &gatewayv1.Gateway{}
		gw.Namespace, gw.Name = namespace, name
		n.retries <- event.GenericEvent{Object: gw}
	}
}

func (n *namespaceBytes) set(namespace, name string, bytes int64) {
	gateways := n.gateways[namespace]
	if bytes == 0 {
		delete(gateways, name)
		if len(gateways) == 0 {
			delete(n.gateways, namespace)
		}
		return
	}
	if gateways == nil {
		gateways = map[string]int64{}
		n.gateways[namespace] = gateways
	}
	gateways[name] = bytes
}

// admit tells whether Gateway namespace/name may hold bytes: when it holds no more than
// its record says (previous), or the namespace's Gateways stay within the limit. An
// admitted Gateway counts with bytes at once, so that two Gateways reconciled together
// do not both pass; its record's next write says the same. A refusal names the bound
// and the sum.
func (n *namespaceBytes) admit(namespace, name string, previous, bytes int64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	sum := bytes
	for other, b := range n.gateways[namespace] {
		if other != name {
			sum += b
		}
	}
	if bytes > previous && sum > n.limit {
		if n.refused[namespace] == nil {
			n.refused[namespace] = map[string]bool{}
		}
		n.refused[namespace][name] = true
		return fmt.Errorf("the render holds %d bytes (objects and values, as JSON): with the other Gateways of namespace %s, %d bytes, over the controller's --max-rendered-bytes-per-namespace of %d; the objects applied before stay as they are", bytes, namespace, sum, n.limit)
	}
	delete(n.refused[namespace], name)
	n.set(namespace, name, bytes)
	return nil
}

// renderedBytes is the size of a render: the bytes of JSON of its objects and of its
// effective values.
func renderedBytes(objs []*unstructured.Unstructured, values map[string]any) int64 {
	var size int64
	for _, obj := range objs {
		raw, _ := json.Marshal(obj.Object) // rendered objects are JSON already
		size += int64(len(raw))
	}
	raw, _ := json.Marshal(values) // values decoded from JSON always encode again
	return size + int64(len(raw))
}
