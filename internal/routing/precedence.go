package routing

import (
	"cmp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// precedence orders the matches of one hostname as the Gateway API says a request tries
// them: an Exact path before any other; then a RegularExpression path (where the
// specification leaves it to the implementation: before prefixes, as most proxies try
// them); then the longest PathPrefix; then a match with a method; then the most header
// matches; then the most query parameter matches. Ties go to the oldest route, then the
// first by namespace/name, then the first rule and match in the route's order.
func precedence(a, b *Match, createdA, createdB metav1.Time) int {
	if c := cmp.Compare(pathRank(a.Path.Type), pathRank(b.Path.Type)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(b.Path.Value), len(a.Path.Value)); c != 0 {
		return c
	}
	if c := cmp.Compare(absent(a.Method), absent(b.Method)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(b.Headers), len(a.Headers)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(b.QueryParams), len(a.QueryParams)); c != 0 {
		return c
	}
	return tieBreak(place{a.Route, createdA, a.Rule, a.Match}, place{b.Route, createdB, b.Rule, b.Match})
}

// place is where a match comes from: its route, created then, and its rule and match.
type place struct {
	route       ObjectRef
	created     metav1.Time
	rule, match int
}

// tieBreak orders two matches of equal precedence, of any kind: the oldest route first,
// then the first by namespace/name, then the first rule and match in the route's order.
func tieBreak(a, b place) int {
	if c := admissionOrder(admissionKey{created: a.created, namespace: a.route.Namespace, name: a.route.Name}, admissionKey{created: b.created, namespace: b.route.Namespace, name: b.route.Name}); c != 0 {
		return c
	}
	if c := cmp.Compare(a.rule, b.rule); c != 0 {
		return c
	}
	return cmp.Compare(a.match, b.match)
}

// sortMatches sorts matches by compare, given the creation time of each one's route
// (routeOf) from created. Matches are hundreds of bytes: a Gateway's thousands of them
// are compared in place, each route's time looked up once, and moved once, along the
// cycles of the sorted order, without a second list of them.
func sortMatches[M any](matches []M, routeOf func(*M) ObjectRef, created map[ObjectRef]metav1.Time, compare func(a, b *M, createdA, createdB metav1.Time) int) {
	type entry struct {
		index   int
		created metav1.Time
	}
	order := make([]entry, len(matches))
	for i := range matches {
		order[i] = entry{index: i, created: created[routeOf(&matches[i])]}
	}
	slices.SortFunc(order, func(a, b entry) int {
		return compare(&matches[a.index], &matches[b.index], a.created, b.created)
	})
	// Position i takes the match at order[i].index; a position filled is marked -1.
	for start := range order {
		if order[start].index < 0 || order[start].index == start {
			continue
		}
		held := matches[start]
		at := start
		for {
			from := order[at].index
			order[at].index = -1
			if from == start {
				matches[at] = held
				break
			}
			matches[at] = matches[from]
			at = from
		}
	}
}

// absent is 1 for an empty string, so that a match with a method sorts first.
func absent(s string) int {
	if s == "" {
		return 1
	}
	return 0
}

func pathRank(t string) int {
	switch gatewayv1.PathMatchType(t) {
	case gatewayv1.PathMatchExact:
		return 0
	case gatewayv1.PathMatchRegularExpression:
		return 1
	}
	return 2
}

func routeAges(attached []*RouteInput) map[ObjectRef]metav1.Time {
	out := make(map[ObjectRef]metav1.Time, len(attached))
	for _, r := range attached {
		out[routeRef(r.Route)] = r.Route.GetCreationTimestamp()
	}
	return out
}

// compareHostnames orders a listener's hosts: exact names first, alphabetically; then
// wildcards, those of more labels (more specific) first; "*" last.
func compareHostnames(a, b string) int {
	if c := cmp.Compare(hostnameRank(a), hostnameRank(b)); c != 0 {
		return c
	}
	if c := cmp.Compare(strings.Count(b, "."), strings.Count(a, ".")); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func hostnameRank(h string) int {
	switch {
	case h == "*":
		return 2
	case strings.HasPrefix(h, "*"):
		return 1
	}
	return 0
}
