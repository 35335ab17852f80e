package snapshot

import (
	"maps"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
)

// AttachMemo keeps, for one Gateway, the listeners each route took, between the passes
// that attach its routes: a route is attached again only when it changed (its UID or
// generation), when the labels of its namespace did, or when the Gateway's side did (its
// UID and generation, what its class serves, its ListenerSets and their verdicts). A
// route's edit on a Gateway of thousands then attaches one route, not all of them. The
// controller keeps one per Gateway, which its Gateway and policy reconciles share; a pass
// holds it alone.
type AttachMemo struct {
	mu     sync.Mutex
	side   *attachSide
	routes map[types.UID]*attachedRoute // by the route's UID: one string to hash, not three
	pass   uint64
}

// attachSide is what of the Gateway's side a route's listeners depend on.
type attachSide struct {
	gateway    types.UID
	generation int64
	serves     listeners.Serves
	sets       []attachedSet
}

type attachedSet struct {
	uid        types.UID
	generation int64
	verdict    listeners.SetVerdict
}

// attachedRoute is what a route took, and of what.
type attachedRoute struct {
	generation int64
	labels     string
	taken      []gatewayv1.SectionName
	pass       uint64
}

// NewAttachMemo is an empty memo, for one Gateway.
func NewAttachMemo() *AttachMemo {
	return &AttachMemo{routes: map[types.UID]*attachedRoute{}}
}

// begin starts a pass over gw's routes, which holds the memo until end: what the memo
// holds counts only while the Gateway's side is the same.
func (m *AttachMemo) begin(gw *gatewayv1.Gateway, serves listeners.Serves, sets []listenerSet) {
	m.mu.Lock()
	side := &attachSide{gateway: gw.UID, generation: gw.Generation, serves: serves}
	for _, s := range sets {
		side.sets = append(side.sets, attachedSet{uid: s.item.UID, generation: s.item.Generation, verdict: s.verdict})
	}
	if m.side == nil || !reflect.DeepEqual(m.side, side) {
		clear(m.routes)
		m.side = side
	}
	m.pass++
}

// held is what the memo has of route at its generation, whatever the labels of its
// namespace; nil when it has nothing (or there is no memo).
func (m *AttachMemo) held(route routes.Route) *attachedRoute {
	if m == nil || route.GetUID() == "" {
		return nil
	}
	e := m.routes[route.GetUID()]
	if e == nil || e.generation != route.GetGeneration() {
		return nil
	}
	return e
}

// taken is what e's route took in an earlier pass, if that still holds for labels, those
// of its namespace.
func (m *AttachMemo) taken(e *attachedRoute, labels string) ([]gatewayv1.SectionName, bool) {
	if e.labels != labels {
		return nil, false
	}
	e.pass = m.pass
	return e.taken, true
}

// keep remembers what route took in this pass; a route without a UID (read from a file)
// is not kept.
func (m *AttachMemo) keep(route routes.Route, labels string, taken []gatewayv1.SectionName) {
	if route.GetUID() != "" {
		m.routes[route.GetUID()] = &attachedRoute{generation: route.GetGeneration(), labels: labels, taken: taken, pass: m.pass}
	}
}

// end forgets the routes a pass that saw them all (complete) did not see: gone, or no
// longer naming the Gateway. It lets the memo go.
func (m *AttachMemo) end(complete bool) {
	defer m.mu.Unlock()
	if complete {
		maps.DeleteFunc(m.routes, func(_ types.UID, e *attachedRoute) bool { return e.pass != m.pass })
	}
}
