package routing

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// A Gateway's tables with a memo equal those without; a route's matches are computed
// again when its generation or its backends' resolution moves, and a route the last table
// did not hold is forgotten.
func TestMatchMemoKeepsOnlyWhatIsUnchanged(t *testing.T) {
	gw := gateway(t)
	a := route(t, "team-a", "a", 2, `{rules: [{matches: [{path: {value: /a}}], backendRefs: [{name: svc, port: 80}]}]}`)
	b := route(t, "team-b", "b", 1, `{rules: [{matches: [{path: {value: /b}}]}]}`)
	a.UID, a.Generation, b.UID, b.Generation = "uid-a", 1, "uid-b", 1
	both := map[*gatewayv1.HTTPRoute][]gatewayv1.SectionName{a: {"http"}, b: {"http"}}
	memo := &MatchMemo{}
	build := func(in Input) *Table {
		fresh := Build(in)
		in.Memo = memo
		memoized := Build(in)
		if !reflect.DeepEqual(fresh, memoized) {
			t.Fatalf("the table with a memo differs from the one without")
		}
		return memoized
	}
	matchOf := func(tb *Table, name string) *Match {
		for _, m := range tb.Listeners[0].Hosts[0].Matches {
			if m.Route.Name == name {
				return m
			}
		}
		t.Fatalf("no match of route %s", name)
		return nil
	}
	first := build(resolvedInput(t, gw, both))
	second := build(resolvedInput(t, gw, both))
	if &matchOf(first, "a").Backends[0] != &matchOf(second, "a").Backends[0] {
		t.Error("an unchanged route's matches were computed again")
	}

	a.Generation, a.Spec.Rules[0].Matches[0].Path.Value = 2, new("/a2")
	if got := matchOf(build(resolvedInput(t, gw, both)), "a").Path.Value; got != "/a2" {
		t.Errorf("a route's new generation serves path %s", got)
	}
	unresolved := resolvedInput(t, gw, both)
	for i := range unresolved.Routes {
		unresolved.Routes[i].BackendRefs = nil
	}
	if matchOf(build(unresolved), "a").Backends[0].Resolved {
		t.Error("a backend that no longer resolves is served as resolved")
	}

	build(resolvedInput(t, gw, map[*gatewayv1.HTTPRoute][]gatewayv1.SectionName{b: {"http"}}))
	if memo.routes.Find(a) != nil || memo.routes.Len() != 1 {
		t.Errorf("the memo holds %d routes after a table of one", memo.routes.Len())
	}
}

// A host's matches kept in order between tables come out as sorting them all does,
// through any sequence of routes edited, added, deleted and recreated under their name,
// on hosts shared and not; and most of those tables reorder a few matches only.
func TestMatchMemoKeepsEachHostInOrder(t *testing.T) {
	gw := gateway(t)
	random := rand.New(rand.NewPCG(7, 29))
	paths := []string{"/", "/a", "/ab", "/abc", "/b", "/shop", "/shop/cart"}
	uids := 0
	newRoute := func(i int) *gatewayv1.HTTPRoute {
		uids++
		spec := fmt.Sprintf(`{rules: [{matches: [{path: {value: %s}}, {path: {type: Exact, value: %s}}], backendRefs: [{name: svc, port: 80}]}]}`,
			paths[random.IntN(len(paths))], paths[random.IntN(len(paths))])
		if random.IntN(4) == 0 {
			spec = `{hostnames: [a.shop.example], ` + spec[1:]
		}
		r := route(t, fmt.Sprintf("team-%d", i%5), fmt.Sprintf("r-%d", i), random.IntN(30), spec)
		r.UID, r.Generation = types.UID(fmt.Sprintf("uid-%d", uids)), 1
		return r
	}
	live := map[int]*gatewayv1.HTTPRoute{}
	for i := range 200 {
		live[i] = newRoute(i)
	}
	memo := &MatchMemo{}
	resortedTables := 0
	for step := range 150 {
		for range 1 + random.IntN(3) {
			i := random.IntN(220)
			r, ok := live[i]
			switch {
			case !ok:
				live[i] = newRoute(i) // a new route, or one recreated under its old name
			case random.IntN(5) == 0:
				delete(live, i)
			default:
				edited := r.DeepCopy()
				edited.Generation++
				edited.Spec.Rules[0].Matches[0].Path.Value = &paths[random.IntN(len(paths))]
				live[i] = edited
			}
		}
		attached := map[*gatewayv1.HTTPRoute][]gatewayv1.SectionName{}
		for _, r := range live {
			attached[r] = []gatewayv1.SectionName{"http", "shop"}
		}
		in := resolvedInput(t, gw, attached)
		slices.SortFunc(in.Routes, func(a, b RouteInput) int { return strings.Compare(a.Route.GetName(), b.Route.GetName()) })
		fresh := Build(in)
		key := hostKey{listener: "http", hostname: "*"}
		prev := memo.hosts[key]
		in.Memo = memo
		if memoized := Build(in); !reflect.DeepEqual(fresh, memoized) {
			t.Fatalf("step %d: the table kept in order differs from the one sorted whole", step)
		}
		// The same host again from the last table's order: taken when few changed.
		from := memo.hosts[key].from
		if sorted, _, ok := resorted(prev, from); ok {
			resortedTables++
			if !reflect.DeepEqual(sorted, memo.hosts[key].sorted) {
				t.Fatalf("step %d: the host's order kept differs from the one built", step)
			}
		}
	}
	if resortedTables < 100 {
		t.Errorf("%d of 150 tables could be ordered from the last one's, want most", resortedTables)
	}
}
