package render

import (
	"encoding/json"
	"reflect"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routing"
)

func memoTable(matches ...routing.Match) *routing.Table {
	return &routing.Table{Listeners: []routing.Listener{{Name: "http", Hosts: []routing.Host{{Hostname: "*", Matches: pointers(matches)}}}}}
}

// pointers are the matches as a host holds them.
func pointers(matches []routing.Match) []*routing.Match {
	out := make([]*routing.Match, len(matches))
	for i := range matches {
		out[i] = &matches[i]
	}
	return out
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
	if len(memo.matches.entries) != 1 || !samePointer(third[0], first[1]) {
		t.Errorf("the memo holds %d matches after a table of one, or converted the one left again", len(memo.matches.entries))
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
	if len(memo.verdicts.entries) != 1 || memo.isShared(second[0]) {
		t.Errorf("the memo holds %d verdicts after a table of one, or still shares the one gone", len(memo.verdicts.entries))
	}
}

// The memo's comparisons see every field: a match or a verdict that differs from another
// in any one field is not the same, while one that shares or copies the other's lists is.
func TestTheMemoComparesEveryField(t *testing.T) {
	timeout := gatewayv1.Duration("5s")
	match := routing.Match{Route: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "ns", Name: "a"}, Rule: 1, RuleName: "r", Match: 2, Name: "ns/a/rule/1/match/2",
		Path: routing.PathMatch{Type: "PathPrefix", Value: "/a"}, Method: "GET", Headers: []routing.ValueMatch{{Type: "Exact", Name: "h", Value: "v"}},
		QueryParams: []routing.ValueMatch{{Type: "Exact", Name: "q", Value: "v"}}, Filters: []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestMirror}},
		Backends: []routing.HTTPBackend{{Backend: routing.Backend{Kind: "Service", Name: "svc", Resolved: true}}}, Timeouts: &gatewayv1.HTTPRouteTimeouts{Request: &timeout}}
	verdict := routing.RouteVerdict{ObjectRef: match.Route, Accepted: true, Reason: "Accepted", Message: "m", Listeners: []string{"http"}}
	checkEveryField(t, match, sameMatch)
	checkEveryField(t, verdict, sameVerdict)
}

// checkEveryField checks same on base against a copy, a copy of its lists, and a copy of
// it with each field in turn changed.
func checkEveryField[T any](t *testing.T, base T, same func(a, b *T) bool) {
	t.Helper()
	shared := base
	if !same(&base, &shared) {
		t.Errorf("%T: a copy sharing its lists is not the same", base)
	}
	copied := deepCopyOf(t, base)
	if !same(&base, &copied) {
		t.Errorf("%T: a copy of its lists is not the same", base)
	}
	for i := range reflect.TypeOf(base).NumField() {
		other := base // sharing the lists but the one changed: changeValue appends to a full list
		changeValue(reflect.ValueOf(&other).Elem().Field(i))
		if same(&base, &other) || same(&other, &base) {
			t.Errorf("%T: a change of %s is not seen", base, reflect.TypeOf(base).Field(i).Name)
		}
	}
}

func deepCopyOf[T any](t *testing.T, v T) T {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// changeValue makes v differ from what it was.
func changeValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Struct:
		changeValue(v.Field(0))
	case reflect.Slice:
		v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		} else {
			v.Set(reflect.Zero(v.Type()))
		}
	default:
		panic("no change for " + v.Kind().String())
	}
}

// The memo looks each item up where the latest table had the next one before by its
// key: whatever moved, came, went or appears twice, every item gets the data of what it
// is, the same data while it did not change, and none of data the memo let go.
func TestTableMemoFollowsTheLatestOrderAndStaysRightWhenItChanges(t *testing.T) {
	match := func(name, path string) routing.Match {
		return routing.Match{Name: "ns/" + name + "/rule/0/match/0", Route: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "ns", Name: name}, Path: routing.PathMatch{Type: "PathPrefix", Value: path}}
	}
	twoHosts := func(first, second []routing.Match) *routing.Table {
		return &routing.Table{Listeners: []routing.Listener{{Name: "http", Hosts: []routing.Host{{Hostname: "a.example", Matches: pointers(first)}, {Hostname: "b.example", Matches: pointers(second)}}}}}
	}
	hostsOf := func(data map[string]any) [][]any {
		var out [][]any
		for _, h := range data["listeners"].([]any)[0].(map[string]any)["hosts"].([]any) {
			out = append(out, h.(map[string]any)["matches"].([]any))
		}
		return out
	}
	a, b, c, d := match("a", "/a"), match("b", "/b"), match("c", "/c"), match("d", "/d")
	memo := NewTableMemo()
	steps := []struct {
		name  string
		table *routing.Table
		// odd: a table no route table is, two items under one key: only the data is checked.
		odd bool
	}{
		{"first", twoHosts([]routing.Match{a, b, c}, []routing.Match{d, a}), false},
		{"a's path edited, so it moves after c", twoHosts([]routing.Match{b, c, match("a", "/z")}, []routing.Match{d, match("a", "/z")}), false},
		{"a route comes first, one goes", twoHosts([]routing.Match{d, b, match("a", "/z")}, []routing.Match{d, match("a", "/z")}), false},
		{"a's path back, its host b first", twoHosts([]routing.Match{d, b, a}, []routing.Match{a, d}), false},
		{"a alone on both hosts", twoHosts([]routing.Match{a}, []routing.Match{a}), false},
		// No route table names one match with two paths, but the memo does not count on it.
		{"one name, two paths", twoHosts([]routing.Match{match("a", "/z")}, []routing.Match{a}), true},
		{"and the same again", twoHosts([]routing.Match{match("a", "/z")}, []routing.Match{a}), true},
		{"then one path", twoHosts([]routing.Match{a}, []routing.Match{a}), false},
	}
	var held map[string]any // the data the latest table had for each match
	for _, step := range steps {
		got := hostsOf(routeTableData(step.table, memo))
		latest := held
		held = map[string]any{}
		for h, host := range step.table.Listeners[0].Hosts {
			for i, m := range host.Matches {
				data := got[h][i]
				if !reflect.DeepEqual(data, matchData(m)) {
					t.Errorf("%s: host %s, match %d: %v, want the data of %s", step.name, host.Hostname, i, data, m.Path.Value)
				}
				if step.odd {
					continue
				}
				if !memo.isShared(data) {
					t.Errorf("%s: host %s, match %d: its data is not held as shared: a template could change it", step.name, host.Hostname, i)
				}
				key := m.Name + " " + m.Path.Value
				if was, ok := latest[key]; ok && !samePointer(was, data) {
					t.Errorf("%s: the data of %s, unchanged, was converted again", step.name, key)
				}
				held[key] = data
			}
		}
	}
}
