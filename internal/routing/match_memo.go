package routing

import (
	"slices"
	"sort"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/routes"
)

// MatchMemo keeps the matches of each HTTPRoute of a Gateway's route table from one
// table to the next, by the route's UID and generation and how its backendRefs
// resolved: a Gateway of thousands of routes is rendered again for one route's edit, and
// the others' matches, unchanged, are not computed again, nor their routes read but for
// their generation. The matches it hands out are shared by the tables that hold them,
// and never changed. Its zero value is empty; one memo serves one Gateway, and is safe
// for concurrent use.
type MatchMemo struct {
	mu     sync.Mutex
	routes routes.Memo[httpRoute]
	hosts  map[hostKey]*memoHost
}

// httpRoute is what of an HTTPRoute its hosts take: its UID, when it was created, its
// hostnames, its matches, and how its backendRefs resolved for them.
type httpRoute struct {
	uid       types.UID
	created   metav1.Time
	hostnames []gatewayv1.Hostname
	matches   []Match
	resolved  []resolution
}

// resolution is what of a backendRef's resolution the matches hold.
type resolution struct {
	rule   int
	reason gatewayv1.RouteConditionReason
}

// httpRouteOf is what r's hosts take of it, route being r's HTTPRoute: the memo's when
// route has the UID, generation and resolved backendRefs it was computed from. A nil
// memo, or a route without a UID (read from a file), computes it.
func (m *MatchMemo) httpRouteOf(r *RouteInput, route *gatewayv1.HTTPRoute) httpRoute {
	if m == nil || route.UID == "" {
		return httpRoute{uid: route.UID, created: route.CreationTimestamp, hostnames: route.Spec.Hostnames, matches: routeMatches(r, route)}
	}
	if e := m.routes.Find(route); e != nil && e.Value.resolvedAs(r) {
		return e.Value
	}
	resolved := make([]resolution, len(r.BackendRefs))
	for i, ref := range r.BackendRefs {
		resolved[i] = resolution{rule: ref.Rule, reason: ref.Reason}
	}
	e := m.routes.Keep(route, func(v *httpRoute) {
		*v = httpRoute{uid: route.UID, created: route.CreationTimestamp, hostnames: route.Spec.Hostnames, matches: routeMatches(r, route), resolved: resolved}
	})
	return e.Value
}

// resolvedAs tells whether r's backendRefs resolve as they did for h's matches.
func (h *httpRoute) resolvedAs(r *RouteInput) bool {
	return slices.EqualFunc(h.resolved, r.BackendRefs, func(was resolution, ref attach.BackendRef) bool {
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
	if m.hosts == nil {
		m.hosts = map[hostKey]*memoHost{}
	}
	m.routes.Pass()
	return func() {
		defer m.mu.Unlock()
		m.routes.ForgetUnseen()
		for key, h := range m.hosts {
			if !h.used {
				delete(m.hosts, key)
				continue
			}
			h.used = false
		}
	}
}

// hostKey is one host of one listener of the table: the listener's key (its name, or its
// ListenerSet's key of it) and the hostname.
type hostKey struct{ listener, hostname string }

// hostRoute is what one HTTPRoute gives a host: its matches, the memo's while the route
// is unchanged.
type hostRoute struct {
	uid     types.UID
	created metav1.Time
	matches []Match
}

// memoHost is a host's HTTP matches in precedence order in the latest table, the
// routes that gave them, in the order the table's input had them, and when each of
// those routes was created. The matches are shared by the tables and never changed.
type memoHost struct {
	sorted  []*Match
	from    []hostRoute
	created map[ObjectRef]metav1.Time
	used    bool
}

// sortedHTTP is a host's HTTP matches, those routes give it, in precedence order. When
// few of the routes changed since the latest table, it is that table's order with the
// changed routes' matches taken out and merged back in where they sort; a route's edit
// on a host of thousands of matches sorts that route's instead of them all. The order is
// the same: precedence is a total order.
func (m *MatchMemo) sortedHTTP(key hostKey, from []hostRoute) []*Match {
	// Only a host the memo keeps is built from its latest order, which it then replaces.
	keeps := m != nil && !slices.ContainsFunc(from, func(r hostRoute) bool { return r.uid == "" })
	var prev *memoHost
	if keeps {
		prev = m.hosts[key]
	}
	sorted, created, ok := resorted(prev, from)
	if !ok {
		created = hostAges(from)
		sorted = make([]*Match, 0, matchesIn(from)) // every host lists its matches, if none
		for _, r := range from {
			for i := range r.matches {
				sorted = append(sorted, &r.matches[i])
			}
		}
		sortMatches(sorted, func(m **Match) ObjectRef { return (*m).Route }, created, byPrecedence)
	}
	if keeps {
		m.hosts[key] = &memoHost{sorted: sorted, from: from, created: created, used: true}
	}
	return sorted
}

// resorted is prev's order with the matches of the routes that changed, came or went
// taken out and those of the routes now in from merged in, and when each of those routes
// was created; false when prev is nil or so much changed that sorting them all is as
// cheap. The creation times are prev's, changed in place: prev is the host's memo until
// the table being built takes its place.
func resorted(prev *memoHost, from []hostRoute) ([]*Match, map[ObjectRef]metav1.Time, bool) {
	if prev == nil {
		return nil, nil, false
	}
	added, gone := changedRoutes(prev.from, from)
	var in []*Match
	for _, r := range added {
		for i := range r.matches {
			in = append(in, &r.matches[i])
		}
	}
	if len(gone)+len(in) > len(prev.sorted)/2+1 {
		return nil, nil, false
	}
	created := prev.created
	for _, route := range gone {
		delete(created, route)
	}
	for _, r := range added {
		if len(r.matches) > 0 {
			created[r.matches[0].Route] = r.created
		}
	}
	isGone := func(route ObjectRef) bool { return slices.Contains(gone, route) }
	if len(gone) > 8 {
		set := make(map[ObjectRef]bool, len(gone))
		for _, ref := range gone {
			set[ref] = true
		}
		isGone = func(route ObjectRef) bool { return set[route] }
	}
	keep := func(sorted, part []*Match) []*Match {
		if len(gone) == 0 {
			return append(sorted, part...)
		}
		for i := range part {
			if !isGone(part[i].Route) {
				sorted = append(sorted, part[i])
			}
		}
		return sorted
	}
	// Each match put in goes where halving prev's order finds its place among the kept
	// matches (a match taken out stands for the next kept one, whose place it had): a few
	// comparisons each, and the kept matches copied between.
	sortMatches(in, func(m **Match) ObjectRef { return (*m).Route }, created, byPrecedence)
	was := prev.sorted
	sorted := make([]*Match, 0, len(was)+len(in))
	next := 0
	for _, m := range in {
		at := next + sort.Search(len(was)-next, func(j int) bool {
			j += next
			for j < len(was) && len(gone) > 0 && isGone(was[j].Route) {
				j++
			}
			return j == len(was) || precedence(m, was[j], created[m.Route], created[was[j].Route]) < 0
		})
		sorted = append(keep(sorted, was[next:at]), m)
		next = at
	}
	return keep(sorted, was[next:]), created, true
}

// matchesIn counts the matches of from.
func matchesIn(from []hostRoute) int {
	n := 0
	for _, r := range from {
		n += len(r.matches)
	}
	return n
}

// byPrecedence is precedence for matches held by pointer.
func byPrecedence(a, b **Match, createdA, createdB metav1.Time) int {
	return precedence(*a, *b, createdA, createdB)
}

// hostAges is when each route of from was created, by the route of its matches.
func hostAges(from []hostRoute) map[ObjectRef]metav1.Time {
	created := make(map[ObjectRef]metav1.Time, len(from))
	for _, r := range from {
		if len(r.matches) > 0 {
			created[r.matches[0].Route] = r.created
		}
	}
	return created
}

// changedRoutes are the routes of now whose matches are not those they had in was
// (added: changed or new), and the routes of was whose matches now does not hold
// (gone: changed or left). Both are in the table input's order, so one walk pairs them
// while they stay aligned, as they do through edits; where a route came or went, the
// rest is paired by UID.
func changedRoutes(was, now []hostRoute) (added []hostRoute, gone []ObjectRef) {
	goneOf := func(r hostRoute) {
		if len(r.matches) > 0 {
			gone = append(gone, r.matches[0].Route)
		}
	}
	i := 0
	for ; i < len(now) && i < len(was) && now[i].uid == was[i].uid; i++ {
		if !sameMatches(was[i].matches, now[i].matches) {
			added = append(added, now[i])
			goneOf(was[i])
		}
	}
	if i == len(now) && i == len(was) {
		return added, gone
	}
	rest := make(map[types.UID][]Match, len(was)-i)
	for _, r := range was[i:] {
		rest[r.uid] = r.matches
	}
	for _, r := range now[i:] {
		if matches, ok := rest[r.uid]; ok && sameMatches(matches, r.matches) {
			delete(rest, r.uid)
			continue
		}
		added = append(added, r)
	}
	for _, r := range was[i:] {
		if _, left := rest[r.uid]; left {
			goneOf(r)
		}
	}
	return added, gone
}

// sameMatches tells whether a and b are the same matches of the memo: the same list.
func sameMatches(a, b []Match) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
