package offline

import (
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
)

// setIndex finds a Set's objects without scanning it: by kind and key, by kind and
// namespace, and routes by the Gateways their parentRefs name. A diff over 5,000
// Gateways reads each Gateway's class, policies and routes; by scanning, that is
// quadratic in the size of the fleet. The index holds positions, never copies: reads
// copy only what they return.
type setIndex struct {
	// of says which slices the index was built from (see sliceID).
	of []sliceID

	blueprints, classes, gateways, routes, classConfigs, configs kindIndex
	namespaces, services, grants, secrets, revisions, renderings kindIndex
	listenerSets                                                 kindIndex
	routesByParent                                               map[client.ObjectKey][]int
}

// kindIndex holds the positions of one kind's objects in its slice. The first object of
// a key counts, as it did when reads scanned the slice.
type kindIndex struct {
	byKey       map[client.ObjectKey]int
	byNamespace map[string][]int
}

// sliceID tells one slice from another: its first element and length. Whoever appends
// to a Set's slices, or replaces them (Add, or a caller holding the Set), changes it, so
// the index is rebuilt on the next read without every writer having to say so. A Set
// is not edited in place once read.
type sliceID struct {
	first any
	n     int
}

func idOf[T any](items []T) sliceID {
	if len(items) == 0 {
		return sliceID{}
	}
	return sliceID{first: &items[0], n: len(items)}
}

// indexLock guards the index of a Set that goroutines read at once (diff translates
// Gateways in parallel).
type indexLock struct {
	mu  sync.Mutex
	idx *setIndex
}

func (s *Set) sliceIDs() []sliceID {
	return []sliceID{
		idOf(s.Blueprints), idOf(s.GatewayClasses), idOf(s.Gateways), idOf(s.HTTPRoutes),
		idOf(s.GatewayClassConfigs), idOf(s.GatewayConfigs), idOf(s.Namespaces),
		idOf(s.Services), idOf(s.ReferenceGrants), idOf(s.Secrets), idOf(s.Revisions), idOf(s.Renderings),
		idOf(s.ListenerSets),
	}
}

// indexed returns the Set's index, built on the first read after the Set changed.
func (s *Set) indexed() *setIndex {
	ids := s.sliceIDs()
	s.index.mu.Lock()
	defer s.index.mu.Unlock()
	if idx := s.index.idx; idx != nil && sameIDs(idx.of, ids) {
		return idx
	}
	idx := &setIndex{
		of:           ids,
		blueprints:   indexKind(s.Blueprints),
		classes:      indexKind(s.GatewayClasses),
		gateways:     indexKind(s.Gateways),
		routes:       indexKind(s.HTTPRoutes),
		classConfigs: indexKind(s.GatewayClassConfigs),
		configs:      indexKind(s.GatewayConfigs),
		namespaces:   indexKind(s.Namespaces),
		services:     indexKind(s.Services),
		grants:       indexKind(s.ReferenceGrants),
		secrets:      indexKind(s.Secrets),
		revisions:    indexKind(s.Revisions),
		renderings:   indexKind(s.Renderings),
		listenerSets: indexKind(s.ListenerSets),
	}
	idx.routesByParent = routesByParent(s.HTTPRoutes, s.ListenerSets, idx.listenerSets)
	s.index.idx = idx
	return idx
}

func sameIDs(a, b []sliceID) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func indexKind[T any, P object[T]](items []T) kindIndex {
	idx := kindIndex{byKey: make(map[client.ObjectKey]int, len(items)), byNamespace: map[string][]int{}}
	for i := range items {
		key := client.ObjectKeyFromObject(P(&items[i]))
		if _, seen := idx.byKey[key]; !seen {
			idx.byKey[key] = i
		}
		idx.byNamespace[key.Namespace] = append(idx.byNamespace[key.Namespace], i)
	}
	return idx
}

// routesByParent lists the positions of the routes naming each Gateway, each route once
// per Gateway: by a parentRef naming the Gateway, or one naming a ListenerSet of
// listenerSets (indexed by sets) that names it.
func routesByParent(routes []gatewayv1.HTTPRoute, listenerSets []gatewayv1.ListenerSet, sets kindIndex) map[client.ObjectKey][]int {
	out := map[client.ObjectKey][]int{}
	for i := range routes {
		seen := map[client.ObjectKey]bool{}
		for _, ref := range routes[i].Spec.ParentRefs {
			key, isGateway := attach.ParentGateway(&routes[i], ref)
			if setKey, isListenerSet := attach.ParentListenerSet(routes[i].Namespace, ref); isListenerSet {
				at, ok := sets.byKey[setKey]
				if !ok {
					continue
				}
				key, isGateway = attach.ListenerSetParent(&listenerSets[at])
			}
			if isGateway && !seen[key] {
				seen[key] = true
				out[key] = append(out[key], i)
			}
		}
	}
	return out
}
