package snapshot

import (
	"slices"
	"sync"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/routes"
)

// BackendMemo keeps, for one Gateway, how each route's backendRefs resolved between the
// passes that resolve them. A route whose spec did not change (its UID and generation)
// resolves as it did while every Service it names still exists or not as it did: a
// route's edit on a Gateway of thousands resolves that route's backendRefs, and of the
// others only looks up their Services in what the pass read. A route naming another
// namespace, whose resolution depends on ReferenceGrants too, is resolved at each pass.
// The controller keeps one per Gateway; a pass holds it alone.
type BackendMemo struct {
	mu     sync.Mutex
	routes routes.Memo[[]attach.BackendRef]
}

// NewBackendMemo is an empty memo, for one Gateway.
func NewBackendMemo() *BackendMemo {
	return &BackendMemo{routes: routes.Memo[[]attach.BackendRef]{}}
}

// begin starts a pass, which holds the memo until end.
func (m *BackendMemo) begin() {
	m.mu.Lock()
	m.routes.Pass()
}

// end forgets the routes a pass that resolved them all (complete) did not resolve, and
// lets the memo go.
func (m *BackendMemo) end(complete bool) {
	defer m.mu.Unlock()
	if complete {
		m.routes.ForgetUnseen()
	}
}

// resolved is route's backendRefs as the memo has them, when they resolve so still:
// exists says whether each Service they name exists. False when the memo has none of
// route at its generation, or a Service came or went.
func (m *BackendMemo) resolved(route routes.Route, exists attach.ServiceExists) ([]attach.BackendRef, bool, error) {
	if m == nil {
		return nil, false, nil
	}
	e := m.routes.Find(route)
	if e == nil {
		return nil, false, nil
	}
	for _, ref := range e.Value {
		if ref.Reason != gatewayv1.RouteReasonResolvedRefs && ref.Reason != gatewayv1.RouteReasonBackendNotFound {
			continue // refused by its spec alone (a kind that is not a Service)
		}
		found, err := exists(ref.Namespace, ref.Name)
		if err != nil {
			return nil, false, err
		}
		if found != ref.Resolved() {
			return nil, false, nil
		}
	}
	return e.Value, true, nil
}

// keep remembers how route's backendRefs resolved in this pass, unless one of them names
// another namespace. The memo shares refs with the pass's snapshot, clipped so that no
// append writes into them.
func (m *BackendMemo) keep(route routes.Route, refs []attach.BackendRef) []attach.BackendRef {
	refs = slices.Clip(refs)
	if m == nil || slices.ContainsFunc(refs, func(ref attach.BackendRef) bool { return ref.Namespace != route.GetNamespace() }) {
		return refs
	}
	m.routes.Keep(route, func(kept *[]attach.BackendRef) { *kept = refs })
	return refs
}
