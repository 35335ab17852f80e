package snapshot

import (
	"reflect"
	"slices"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
)

// AttachMemo keeps, for one Gateway, the listeners each route took, between the passes
// that attach its routes: a route is attached again only when it changed (its UID or
// generation), when the labels of its namespace did, or when the Gateway's side did (its
// UID and generation, what its class serves, its ListenerSets and their verdicts). It
// keeps the HTTPRoutes in their order by namespace and name too, so that a pass sorts
// only the routes that came. A route's edit on a Gateway of thousands then attaches one
// route and reads of the others only their generation. The controller keeps one per
// Gateway, which its Gateway and policy reconciles share; a pass holds it alone.
type AttachMemo struct {
	mu     sync.Mutex
	side   *attachSide
	routes routes.Memo[attachedRoute]
	// order is every HTTPRoute the latest pass kept (attached or not), by namespace and
	// name.
	order []*routes.MemoEntry[attachedRoute]
	// labels are the labels of each namespace the latest pass read, as one string, when
	// it saw every route; nil else.
	labels map[string]string
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

// attachedRoute is what a route took, and for which labels of its namespace, and what
// the route table reads of it at its generation.
type attachedRoute struct {
	labels string
	taken  []gatewayv1.SectionName
	facts  *routing.RouteFacts
	// ordered says the entry has its place in the memo's order.
	ordered bool
}

// NewAttachMemo is an empty memo, for one Gateway.
func NewAttachMemo() *AttachMemo {
	return &AttachMemo{routes: routes.Memo[attachedRoute]{}}
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
		m.routes.Clear()
		m.order, m.labels = nil, nil
		m.side = side
	}
	m.routes.Pass()
}

// sameLabels says whether every namespace the memo's routes are in has the labels it
// had at the end of the latest pass, which saw every route (then every route the memo
// holds was judged by those labels): a route then needs no reading of its namespace.
// key is a namespace's labels now, as one string.
func (m *AttachMemo) sameLabels(key func(namespace string) (string, error)) (bool, error) {
	if m.labels == nil {
		return false, nil
	}
	for namespace, was := range m.labels {
		now, err := key(namespace)
		if err != nil || now != was {
			return false, err
		}
	}
	return true, nil
}

// taken is route's entry from an earlier pass, at its generation and for labels, those
// of its namespace (unless sameLabels says they are the same); nil when that does not
// hold.
func (m *AttachMemo) taken(route routes.Route, sameLabels bool, labels func() (string, error)) (*routes.MemoEntry[attachedRoute], error) {
	e := m.routes.Find(route)
	if e == nil || sameLabels {
		return e, nil
	}
	current, err := labels()
	if err != nil || current != e.Value.labels {
		return nil, err
	}
	return e, nil
}

// takenBy is what e's route took; nil when e is.
func takenBy(e *routes.MemoEntry[attachedRoute]) []gatewayv1.SectionName {
	if e == nil {
		return nil
	}
	return e.Value.taken
}

// keep remembers what route took in this pass, for labels; a route without a UID (read
// from a file) is not kept (nil).
func (m *AttachMemo) keep(route routes.Route, labels string, taken []gatewayv1.SectionName) *routes.MemoEntry[attachedRoute] {
	// The entry keeps its place in the order: it is the same route whatever it took.
	return m.routes.Keep(route, func(v *attachedRoute) { v.labels, v.taken, v.facts = labels, taken, routing.FactsOf(route) })
}

// reorder is the memo's order for this pass: the routes it kept before and saw again,
// in their places, with came (entries this pass kept anew) merged in by namespace and
// name, each where halving the earlier order finds its place: a few routes read, not
// every route up to it. The memo keeps it for the next pass.
func (m *AttachMemo) reorder(came []*routes.MemoEntry[attachedRoute]) []*routes.MemoEntry[attachedRoute] {
	slices.SortFunc(came, compareEntries)
	seen := func(order, part []*routes.MemoEntry[attachedRoute]) []*routes.MemoEntry[attachedRoute] {
		for _, e := range part {
			if m.routes.Seen(e) {
				order = append(order, e)
				continue
			}
			// Gone, or no longer naming the Gateway; or unseen by a pass that fails after
			// this, which forgets nothing: seen again, it comes back into the order.
			e.Value.ordered = false
		}
		return order
	}
	was := m.order
	order := make([]*routes.MemoEntry[attachedRoute], 0, len(was)+len(came))
	next := 0
	for _, e := range came {
		at := next + sort.Search(len(was)-next, func(j int) bool { return compareEntries(e, was[next+j]) < 0 })
		order = append(seen(order, was[next:at]), e)
		next = at
		e.Value.ordered = true
	}
	m.order = seen(order, was[next:])
	return m.order
}

func compareEntries(a, b *routes.MemoEntry[attachedRoute]) int {
	return routing.CompareNamespacedNames(a.Route.GetNamespace(), a.Route.GetName(), b.Route.GetNamespace(), b.Route.GetName())
}

// end forgets the routes a pass that saw them all (complete) did not see: gone, or no
// longer naming the Gateway; and keeps the labels of their namespaces it judged them by
// (labels), for sameLabels. It lets the memo go.
func (m *AttachMemo) end(complete bool, labels map[string]namespaceLabels) {
	defer m.mu.Unlock()
	m.labels = nil
	if !complete {
		return
	}
	m.routes.ForgetUnseen()
	m.labels = make(map[string]string, len(labels))
	for namespace, l := range labels {
		m.labels[namespace] = l.key
	}
}
