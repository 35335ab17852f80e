package routing

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
)

// MatchMemo keeps the matches of each HTTPRoute of a Gateway's route table from one
// table to the next, by the route's UID and generation and how its backendRefs
// resolved: a Gateway of thousands of routes is rendered again for one route's edit, and
// the others' matches, unchanged, are not computed again. The matches it hands out are
// shared by the tables that hold them, and never changed. Its zero value is empty; one
// memo serves one Gateway, and is safe for concurrent use.
type MatchMemo struct {
	mu     sync.Mutex
	routes map[types.UID]*memoRoute
}

type memoRoute struct {
	generation int64
	resolved   []resolution
	matches    []Match
	used       bool
}

// resolution is what of a backendRef's resolution the matches hold.
type resolution struct {
	rule   int
	reason gatewayv1.RouteConditionReason
}

// httpMatches are r's matches, route being r's HTTPRoute: the memo's when route has
// the UID, generation and resolved backendRefs they were computed from. A nil memo, or
// a route without a UID (read from a file), computes them.
func (m *MatchMemo) httpMatches(r *RouteInput, route *gatewayv1.HTTPRoute) []Match {
	if m == nil || route.UID == "" {
		return routeMatches(r, route)
	}
	if e, ok := m.routes[route.UID]; ok && e.generation == route.Generation && e.resolvedAs(r) {
		e.used = true
		return e.matches
	}
	resolved := make([]resolution, len(r.BackendRefs))
	for i, ref := range r.BackendRefs {
		resolved[i] = resolution{rule: ref.Rule, reason: ref.Reason}
	}
	matches := routeMatches(r, route)
	m.routes[route.UID] = &memoRoute{generation: route.Generation, resolved: resolved, matches: matches, used: true}
	return matches
}

// resolvedAs tells whether r's backendRefs resolve as they did for e's matches.
func (e *memoRoute) resolvedAs(r *RouteInput) bool {
	return slices.EqualFunc(e.resolved, r.BackendRefs, func(was resolution, ref attach.BackendRef) bool {
		return was.rule == ref.Rule && was.reason == ref.Reason
	})
}

// begin takes the memo for one table; the function it returns forgets the routes that
// table did not hold, and gives the memo back.
func (m *MatchMemo) begin() func() {
	if m == nil {
		return func() {}
	}
	m.mu.Lock()
	if m.routes == nil {
		m.routes = map[types.UID]*memoRoute{}
	}
	return func() {
		defer m.mu.Unlock()
		for uid, e := range m.routes {
			if !e.used {
				delete(m.routes, uid)
				continue
			}
			e.used = false
		}
	}
}
