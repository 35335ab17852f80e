package render_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/render"
)

// Renders of one blueprint reuse the copies of its templates: every render must still get
// the whole budget, whatever the render before spent or how it ended.
func TestRendersOfOneBlueprintEachGetTheWholeBudget(t *testing.T) {
	// .Values.operations operations (the range draws them all before its first
	// iteration) and twice .Values.bytes bytes written, through include.
	bp := gatewayTemplates(t, configMap+`data:
  a: {{ range $i := int .Values.operations }}{{ break }}{{ end }}{{ $_ := include "write" . }}{{ $_ = include "write" . }}done
`)
	bp.Spec.Helpers = `{{ define "write" }}{{ repeat (int .Values.bytes) "x" }}{{ end }}`
	parsed, err := render.Parse(bp)
	if err != nil {
		t.Fatal(err)
	}
	// More than half the budget of operations and of bytes: two such renders on one
	// budget exceed both.
	overHalf := map[string]any{"operations": 600000, "bytes": 3 << 20}
	renders := []struct {
		name   string
		values map[string]any
		want   string // the error, "" for a render that succeeds
	}{
		{"first", overHalf, ""},
		{"again", overHalf, ""},
		{"out of operations", map[string]any{"operations": 2000000, "bytes": 0}, "render exceeded its budget of 1000000 operations"},
		{"after running out of operations", overHalf, ""},
		{"out of bytes", map[string]any{"operations": 0, "bytes": 5 << 20}, "the render wrote more than 8 MiB"},
		{"after running out of bytes", overHalf, ""},
	}
	for _, r := range renders {
		out, err := parsed.Gateway(testInput(r.values))
		if r.want != "" {
			if err == nil || !strings.Contains(err.Error(), r.want) {
				t.Fatalf("%s: got %v, want an error containing %q", r.name, err, r.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if got := out.Objects[0].Object["data"].(map[string]any)["a"]; got != "done" {
			t.Fatalf("%s: data.a = %q, want done", r.name, got)
		}
		// One render at a time needs one copy, taken again by the render that follows.
		if idle := render.IdleClones(parsed); idle != 1 {
			t.Fatalf("%s: %d copies of the templates wait for a render, want 1", r.name, idle)
		}
	}
}

// Concurrent renders of one blueprint never share a copy of its templates: each gets
// its own output (go test -race tells when two share a budget).
func TestConcurrentRendersOfOneBlueprint(t *testing.T) {
	parsed, err := render.Parse(blueprint(t, `
helpers: |
  {{- define "name" }}{{ .Gateway.metadata.name }}-{{ .Values.n }}{{ end -}}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ include "name" . }}}
      data:
        tpl: {{ tpl "{{ .Values.n }}" . | quote }}
        loop: {{ range until (int .Values.n) }}x{{ end }}
httpRouteTemplate:
  resourceTemplates:
  - name: route
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ include "name" . }}-{{ .HTTPRoute.metadata.name }}}
`))
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, rendersEach = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			n := g + 1
			in := testInput(map[string]any{"n": n})
			in.Gateway.Name = fmt.Sprintf("gw%d", g)
			route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "team-a"}}
			wantName := fmt.Sprintf("gw%d-%d", g, n)
			for range rendersEach {
				out, err := parsed.Gateway(in)
				if err != nil {
					errs <- err
					return
				}
				data := out.Objects[0].Object["data"].(map[string]any)
				if name := out.Objects[0].GetName(); name != wantName || data["tpl"] != fmt.Sprint(n) || data["loop"] != strings.Repeat("x", n) {
					errs <- fmt.Errorf("goroutine %d rendered %s with %v", g, name, data)
					return
				}
				out, err = parsed.Route(in, route)
				if err != nil {
					errs <- err
					return
				}
				if name := out.Objects[0].GetName(); name != wantName+"-r" {
					errs <- fmt.Errorf("goroutine %d rendered the route's %s", g, name)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if idle := render.IdleClones(parsed); idle < 1 || idle > goroutines {
		t.Errorf("%d copies of the templates wait for a render, want 1 to %d: one per render running at once", idle, goroutines)
	}
}
