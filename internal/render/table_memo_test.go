package render_test

import (
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routing"
)

// The route table's data is shared by every render of a Gateway: a template that would
// change it fails, with or without a memo (offline), so that no render sees what an
// earlier one did to it; a copy is the template's to change.
func TestTemplatesCannotChangeTheRouteTable(t *testing.T) {
	const match = `{{ $m := index (index (index .RouteTable.listeners 0).hosts 0).matches 0 }}`
	table := &routing.Table{Listeners: []routing.Listener{{Name: "http", Hosts: []routing.Host{{Hostname: "*", Matches: []*routing.Match{{
		Name: "team-a/web/rule/0/match/0", Route: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "team-a", Name: "web"},
		Path: routing.PathMatch{Type: "PathPrefix", Value: "/"},
	}}}}}}, Routes: []routing.RouteVerdict{{ObjectRef: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "team-a", Name: "web"}, Accepted: true, Listeners: []string{"http"}}}}
	for _, tt := range []struct {
		name, template, fails string
	}{
		{name: "set on a match", template: match + `{{ $_ := set $m "path" "/x" }}`, fails: `set "path"`},
		{name: "set on a map in a match", template: match + `{{ $_ := set $m.path "value" "/x" }}`, fails: `set "value"`},
		{name: "unset", template: match + `{{ $_ := unset $m "route" }}`, fails: `unset "route"`},
		{name: "merge into a match", template: match + `{{ $_ := merge $m (dict "x" 1) }}`, fails: "merge:"},
		{name: "mergeOverwrite into a match", template: match + `{{ $_ := mergeOverwrite $m.route (dict "name" "x") }}`, fails: "mergeOverwrite:"},
		{name: "set on a route's verdict", template: `{{ $_ := set (index .RouteTable.routes 0) "accepted" false }}`, fails: `set "accepted"`},
		{name: "set on a copy", template: match + `{{ $c := deepCopy $m }}{{ $_ := set $c "path" "/x" }}{{ $_ := set $c.route "name" "x" }}`},
		{name: "merge a match into a dict", template: match + `{{ $_ := merge (dict "x" 1) $m }}`},
	} {
		for _, memo := range []*render.TableMemo{nil, render.NewTableMemo()} {
			t.Run(tt.name, func(t *testing.T) {
				parsed, err := render.Parse(gatewayTemplates(t, configMap+tt.template+"\ndata: {x: \"1\"}\n"))
				if err != nil {
					t.Fatal(err)
				}
				in := testInput(nil)
				in.RouteTable, in.TableMemo = table, memo
				_, err = parsed.Gateway(in)
				switch {
				case tt.fails == "" && err != nil:
					t.Fatalf("render failed: %v", err)
				case tt.fails != "" && (err == nil || !strings.Contains(err.Error(), tt.fails) || !strings.Contains(err.Error(), "cannot be changed")):
					t.Fatalf("render error %v, want one of %s changing the shared table", err, tt.fails)
				}
				if _, again := parsed.Gateway(in); tt.fails == "" && again != nil {
					t.Fatalf("a second render failed: %v", again)
				}
			})
		}
	}
}
