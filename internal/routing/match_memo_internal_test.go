package routing

import (
	"reflect"
	"testing"

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
		for i, m := range tb.Listeners[0].Hosts[0].Matches {
			if m.Route.Name == name {
				return &tb.Listeners[0].Hosts[0].Matches[i]
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
	if _, kept := memo.routes["uid-a"]; kept || len(memo.routes) != 1 {
		t.Errorf("the memo holds %d routes after a table of one", len(memo.routes))
	}
}
