package controllers

import (
	"sync"
	"time"
)

// slotRetry is how soon a reconcile that found its namespace's slots taken comes back.
const slotRetry = 500 * time.Millisecond

// namespaceSlots bounds how many workers one namespace's reconciles may hold at once, so
// that one tenant's slow renders (each bounded, but many) cannot keep every worker busy
// while another tenant's change waits. A reconcile that finds no free slot is requeued
// shortly instead of blocking a worker.
type namespaceSlots struct {
	perNamespace int
	mu           sync.Mutex
	held         map[string]int
}

// newNamespaceSlots gives each namespace half of the workers, at least one.
func newNamespaceSlots(workers int) *namespaceSlots {
	return &namespaceSlots{perNamespace: max(1, workers/2), held: map[string]int{}}
}

// acquire takes a slot of namespace, and returns its release, or false when all its
// slots are taken.
func (s *namespaceSlots) acquire(namespace string) (func(), bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[namespace] >= s.perNamespace {
		return nil, false
	}
	s.held[namespace]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.held[namespace]--; s.held[namespace] == 0 {
			delete(s.held, namespace)
		}
	}, true
}

// DefaultGatewayWorkers is how many Gateways are reconciled at once unless told
// otherwise. A reconcile spends most of its time waiting on the API server, not on CPU,
// so there can be more workers than cores; the API server's capacity is the limit.
const DefaultGatewayWorkers = 16

// reconcileTimeout ends a reconcile that waits too long on the API server or a cache,
// so that no read can hold a worker forever.
const reconcileTimeout = 2 * time.Minute

// DefaultRouteWorkers is how many HTTPRoutes are reconciled at once unless told otherwise.
const DefaultRouteWorkers = 8
