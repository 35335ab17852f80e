package render

import (
	"reflect"
	"testing"

	"github.com/gatewright/gatewright/internal/routing"
)

func memoTable(matches ...routing.Match) *routing.Table {
	return &routing.Table{Listeners: []routing.Listener{{Name: "http", Hosts: []routing.Host{{Hostname: "*", Matches: matches}}}}}
}

func matchesOf(data map[string]any) []any {
	return data["listeners"].([]any)[0].(map[string]any)["hosts"].([]any)[0].(map[string]any)["matches"].([]any)
}

func samePointer(a, b any) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }

// The memo hands out the same data for a match that did not change, converts one that
// did, and forgets one the table no longer has: its maps are the templates' again.
func TestTableMemoConvertsOnlyWhatChanged(t *testing.T) {
	a := routing.Match{Name: "ns/a/rule/0/match/0", Route: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "ns", Name: "a"}, Path: routing.PathMatch{Type: "PathPrefix", Value: "/a"},
		Backends: []routing.HTTPBackend{{Backend: routing.Backend{Kind: "Service", Name: "svc", Resolved: true}}}}
	b := routing.Match{Name: "ns/b/rule/0/match/0", Route: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "ns", Name: "b"}, Path: routing.PathMatch{Type: "PathPrefix", Value: "/b"}}
	memo := NewTableMemo()
	first := matchesOf(routeTableData(memoTable(a, b), memo))

	unresolved := a
	unresolved.Backends = []routing.HTTPBackend{{Backend: routing.Backend{Kind: "Service", Name: "svc", Reason: "BackendNotFound"}}}
	second := matchesOf(routeTableData(memoTable(unresolved, b), memo))
	if !samePointer(first[1], second[1]) {
		t.Error("the data of a match that did not change was converted again")
	}
	if samePointer(first[0], second[0]) || second[0].(map[string]any)["backends"].([]any)[0].(map[string]any)["resolved"] != false {
		t.Error("the data of a match whose backend no longer resolves is not converted again")
	}
	if memo.isShared(first[0]) || memo.isShared(first[0].(map[string]any)["route"]) {
		t.Error("the maps of data the memo replaced are still held as shared")
	}
	if !memo.isShared(second[0]) || !memo.isShared(second[0].(map[string]any)["path"]) {
		t.Error("the maps of the data handed out are not held as shared")
	}

	third := matchesOf(routeTableData(memoTable(b), memo))
	if len(memo.matches) != 1 || !samePointer(third[0], first[1]) {
		t.Errorf("the memo holds %d matches after a table of one, or converted the one left again", len(memo.matches))
	}
	if memo.isShared(second[0]) {
		t.Error("the maps of a match the table no longer has are still held as shared")
	}
	if reflect.DeepEqual(matchData(&b), third[0]) == false {
		t.Error("the memo's data is not the match's")
	}
}

// Route verdicts are kept as matches are: the same data while a verdict is the same,
// converted again when it changes, forgotten when its route leaves the table.
func TestTableMemoKeepsVerdictsThatDidNotChange(t *testing.T) {
	verdict := func(name string, accepted bool) routing.RouteVerdict {
		return routing.RouteVerdict{ObjectRef: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "ns", Name: name}, Accepted: accepted, Listeners: []string{"http"}}
	}
	table := func(verdicts ...routing.RouteVerdict) *routing.Table {
		return &routing.Table{Listeners: []routing.Listener{}, Routes: verdicts}
	}
	routesOf := func(data map[string]any) []any { return data["routes"].([]any) }
	memo := NewTableMemo()
	first := routesOf(routeTableData(table(verdict("a", true), verdict("b", true)), memo))
	second := routesOf(routeTableData(table(verdict("a", false), verdict("b", true)), memo))
	if !samePointer(first[1], second[1]) {
		t.Error("the data of a verdict that did not change was converted again")
	}
	if samePointer(first[0], second[0]) || second[0].(map[string]any)["accepted"] != false {
		t.Error("the data of a route now refused is not converted again")
	}
	if !memo.isShared(second[0]) || memo.isShared(first[0]) {
		t.Error("the verdicts' maps handed out are not shared, or those replaced still are")
	}
	routeTableData(table(verdict("b", true)), memo)
	if len(memo.verdicts) != 1 || memo.isShared(second[0]) {
		t.Errorf("the memo holds %d verdicts after a table of one, or still shares the one gone", len(memo.verdicts))
	}
}
