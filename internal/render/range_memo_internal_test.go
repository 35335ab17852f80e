package render

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"text/template"
	"text/template/parse"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/routing"
)

// A range body is kept only when what it prints depends on its element alone.
func TestOnlyBodiesThatReadTheirElementAreKept(t *testing.T) {
	tests := []struct {
		name, text string
		kept       bool
	}{
		{"fields of the element", `{{ range .matches }}{{ .route.namespace }}/{{ .route.name }} {{ .path.value }}{{ end }}`, true},
		{"the element's variable", `{{ range $m := .matches }}{{ $m.route.name | quote }}{{ end }}`, true},
		{"a variable of the body", `{{ range .matches }}{{ $p := .path.value }}{{ if $p }}{{ $p | upper }}{{ end }}{{ end }}`, true},
		{"a loop of its own that breaks", `{{ range .matches }}{{ range .headers }}{{ if .name }}{{ break }}{{ end }}{{ end }}{{ end }}`, true},
		{"the verdicts", `{{ range $.RouteTable.routes }}{{ .name }}={{ .accepted }}{{ end }}`, true},
		{"a host's matches through a variable", `{{ range $h := .hosts }}{{ range $h.matches }}{{ .name }}{{ end }}{{ end }}`, true},
		{"the index", `{{ range $i, $m := .matches }}{{ $i }}{{ end }}`, false},
		{"the template's data", `{{ range .matches }}{{ $.Values.x }}{{ end }}`, false},
		{"a variable from outside", `{{ $x := 1 }}{{ range .matches }}{{ $x }}{{ end }}`, false},
		{"an assignment outside", `{{ $x := 1 }}{{ range .matches }}{{ $x = 2 }}{{ end }}`, false},
		{"include", `{{ range .matches }}{{ include "other" . }}{{ end }}{{ define "other" }}x{{ end }}`, false},
		{"a template", `{{ range .matches }}{{ template "other" . }}{{ end }}{{ define "other" }}x{{ end }}`, false},
		{"set on a dict from outside", `{{ $d := dict }}{{ range .matches }}{{ $_ := set $d "a" 1 }}{{ end }}`, false},
		{"a function whose result has no set order", `{{ range .matches }}{{ keys . | join "," }}{{ end }}`, false},
		{"a break of the range itself", `{{ range .matches }}{{ if .x }}{{ break }}{{ end }}{{ .name }}{{ end }}`, false},
		{"another list", `{{ range .Values.items }}{{ .name }}{{ end }}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := template.Must(template.New("t").Funcs(baseFunctions()).Funcs(template.FuncMap{"include": func(string, any) string { return "" }}).Parse(tt.text))
			before := tmpl.Tree.Root.String()
			keepRangeBodies(tmpl.Templates())
			after := tmpl.Tree.Root.String()
			if kept := strings.Contains(after, printedBeforeFunction); kept != tt.kept {
				t.Errorf("kept %v, want %v: %s", kept, tt.kept, after)
			}
			if !tt.kept && after != before {
				t.Errorf("a body not kept was changed: %s", after)
			}
		})
	}
}

// A Gateway rendered again after one route's edit prints what a render from nothing
// prints, every other match's text taken from the memo; a match that changed, came or
// went is printed as it is now.
func TestKeptRangeBodiesPrintWhatTheBodyWould(t *testing.T) {
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "routes"}}
	bp.Spec.GatewayTemplate.ResourceTemplates = []gatewrightv1alpha1.ResourceTemplate{{Name: "routes", Template: `apiVersion: v1
kind: ConfigMap
metadata: {name: routes}
data:
  routes: |
    {{- range $l := .RouteTable.listeners }}{{ range $l.hosts }}{{ range .matches }}
    {{ .route.namespace }}/{{ .route.name }} {{ .path.value | quote }}{{ range .headers }} {{ .name }}{{ end }}
    {{- end }}{{ end }}{{ end }}
  verdicts: |
    {{- range .RouteTable.routes }}
    {{ .name }} {{ .accepted }}
    {{- end }}`}}
	parsed, err := Parse(bp)
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]string{}
	for i := range 50 {
		routes[fmt.Sprintf("r%02d", i)] = fmt.Sprintf("/r%02d", i)
	}
	table := func() *routing.Table {
		tbl := &routing.Table{Listeners: []routing.Listener{{Name: "http", Hosts: []routing.Host{{Hostname: "*"}}}}}
		for i := range 60 {
			name := fmt.Sprintf("r%02d", i)
			path, ok := routes[name]
			if !ok {
				continue
			}
			ref := routing.ObjectRef{Kind: "HTTPRoute", Namespace: "ns", Name: name}
			tbl.Listeners[0].Hosts[0].Matches = append(tbl.Listeners[0].Hosts[0].Matches, &routing.Match{Route: ref, Name: "ns/" + name + "/rule/0/match/0",
				Path: routing.PathMatch{Type: "PathPrefix", Value: path}, Headers: []routing.ValueMatch{{Type: "Exact", Name: "x-" + name, Value: "1"}}})
			tbl.Routes = append(tbl.Routes, routing.RouteVerdict{ObjectRef: ref, Accepted: true, Listeners: []string{"http"}})
		}
		return tbl
	}
	render := func(memo *TableMemo) string {
		t.Helper()
		in := Input{Gateway: &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw"}}, GatewayClass: &gatewayv1.GatewayClass{}, RouteTable: table(), TableMemo: memo}
		out, err := parsed.Gateway(in)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(out.Objects[0].Object["data"])
	}
	memo := NewTableMemo()
	if got, want := render(memo), render(nil); got != want {
		t.Fatalf("the first render prints\n%s\nwant\n%s", got, want)
	}
	if len(memo.printed) != 100 {
		t.Fatalf("the memo kept texts for %d maps, want the 50 matches' and the 50 verdicts'", len(memo.printed))
	}
	edits := []func(){
		func() {},
		func() { routes["r07"] = "/edited" },
		func() { delete(routes, "r13") },
		func() { routes["r55"] = "/new" },
		func() { routes["r07"], routes["r13"] = "/r07", "/back" },
	}
	for i, edit := range edits {
		edit()
		if got, want := render(memo), render(nil); got != want {
			t.Fatalf("edit %d: the render prints\n%s\nwant\n%s", i, got, want)
		}
		// Another map may take the address of one forgotten: its texts go with it.
		for data := range memo.printed {
			if !memo.shared[data] {
				t.Fatalf("edit %d: the memo keeps texts for a map it no longer shares", i)
			}
		}
	}
	// What is printed again is the memo's: a kept text shows where it would print.
	for data, texts := range memo.printed {
		for j := range texts {
			texts[j].text = strings.Replace(texts[j].text, "ns/", "kept/", 1)
		}
		memo.printed[data] = texts
	}
	routes["r20"] = "/changed"
	got := render(memo)
	if strings.Count(got, "kept/") != 50 || !strings.Contains(got, `ns/r20 "/changed"`) {
		t.Errorf("after an edit, want the 50 other matches printed from the memo and r20 printed anew:\n%s", got)
	}
}

// A kept range hands its body one run for each stretch of elements whose text the memo
// kept for that body, and the other elements as they are: after an edit among
// thousands of matches the body runs for the edited one, not for every match.
func TestKeptRangeRunsTheBodyOnlyWhereTheMemoHasNoText(t *testing.T) {
	memo := NewTableMemo()
	maps := make([]any, 5)
	for i := range maps {
		m := map[string]any{"name": fmt.Sprintf("m%d", i)}
		maps[i] = m
		memo.shared[reflect.ValueOf(m).Pointer()] = true
		if i != 2 {
			memo.keepPrinted(reflect.ValueOf(m).Pointer(), 7, fmt.Sprintf("text%d;", i))
		}
	}
	b := &binder{table: memo}
	got, ok := b.keptRange(7, maps).([]any)
	if !ok || len(got) != 3 {
		t.Fatalf("keptRange gave %#v, want a run, the element without text, a run", got)
	}
	runTexts := func(v any) string {
		run, ok := v.(*keptRun)
		if !ok {
			t.Fatalf("%#v is not a run", v)
		}
		return strings.Join(run.texts, "")
	}
	if runTexts(got[0]) != "text0;text1;" || runTexts(got[2]) != "text3;text4;" {
		t.Errorf("the runs hold %q and %q, want the texts of m0, m1 and of m3, m4 in order", runTexts(got[0]), runTexts(got[2]))
	}
	if m, ok := got[1].(map[string]any); !ok || m["name"] != "m2" {
		t.Errorf("the element without a text is %#v, want m2 as it is", got[1])
	}
	for _, tt := range []struct {
		name  string
		body  int
		items any
	}{
		{"another body's texts", 8, maps},
		{"a list the memo did not hand out", 7, []any{map[string]any{"name": "x"}}},
		{"no list", 7, "text"},
	} {
		if got := b.keptRange(tt.body, tt.items); !reflect.DeepEqual(got, tt.items) {
			t.Errorf("%s: keptRange gave %#v, want the items unchanged", tt.name, got)
		}
	}
	if got := (&binder{}).keptRange(7, maps); len(got.([]any)) != 5 {
		t.Errorf("without a memo, keptRange gave %#v, want the items", got)
	}
}

// A kept range counts its iterations on the list as written, before the memo's runs
// replace its elements: a render draws the same budget whatever the memo holds, so a
// render refused by its budget is refused after a restart as before it.
func TestKeptRangeCountsTheListAsWritten(t *testing.T) {
	tmpl := template.Must(template.New("t").Funcs(baseFunctions()).Parse(`{{ range .matches }}{{ .name }}{{ end }}`))
	keepRangeBodies(tmpl.Templates())
	instrument(tmpl.Templates(), nil)
	pipe := tmpl.Tree.Root.Nodes[len(tmpl.Tree.Root.Nodes)-1].(*parse.RangeNode).Pipe
	var calls []string
	for _, cmd := range pipe.Cmds {
		if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok {
			calls = append(calls, id.Ident)
		}
	}
	if want := []string{iterationsFunction, keptRangeFunction}; fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("the range's pipeline calls %v, want %v: %s", calls, want, pipe)
	}
}
