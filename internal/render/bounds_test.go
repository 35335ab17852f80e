package render_test

import (
	"fmt"
	"strings"
	"testing"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
)

// Beside the hostile renders that a small Gateway's budget stops (budget_test.go,
// memory_test.go), the largest legitimate route inputs render under the default bounds
// with linear work per match: a Gateway shared by 5,000 routes, and a route of 128
// matches.
func TestLargestRouteInputsRenderUnderTheDefaults(t *testing.T) {
	tests := []struct {
		name            string
		routes, matches int
	}{
		{name: "a Gateway with 5,000 routes of one match", routes: 5000, matches: 1},
		{name: "a Gateway with one route of 128 matches", routes: 1, matches: 128},
	}
	parsed, err := render.Parse(routeTable(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := parsed.Gateway(routesInput(tt.routes, tt.matches))
			if err != nil {
				t.Fatal(err)
			}
			table := out.Objects[1].Object["data"].(map[string]any)["routes.json"].(string)
			if got := strings.Count(table, `"cluster"`); got != tt.routes*tt.matches {
				t.Fatalf("the route table has %d entries, want %d", got, tt.routes*tt.matches)
			}
		})
	}
}

// The same loop over tenant numbers that the base stops is stopped on a Gateway with
// routes too, only later: the routes add their allowance, no more.
func TestRoutesAddTheirAllowanceOnly(t *testing.T) {
	bp := routeTable(t)
	bp.Spec.GatewayTemplate.ResourceTemplates[0].Template = "{{ range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}\n" + bp.Spec.GatewayTemplate.ResourceTemplates[0].Template
	parsed, err := render.Parse(bp)
	if err != nil {
		t.Fatal(err)
	}
	for routes, want := range map[int]string{0: "budget of 1000000 operations", 100: "budget of 1020000 operations"} {
		if _, err := parsed.Gateway(routesInput(routes, 1)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("with %d routes: got %v, want the %s", routes, err, want)
		}
	}
}

// A blueprint asking above the operator's caps gets the caps, and its lint says so.
func TestRenderLimitsAboveTheCapsAreLinted(t *testing.T) {
	bp := routeTable(t)
	bp.Spec.RenderLimits = &gatewrightv1alpha1.RenderLimits{Operations: new(int64(5000000))}
	caps := render.DefaultCaps
	caps.Base.Operations = 2000000
	parsed, err := render.ParseWithin(bp, caps)
	if err != nil {
		t.Fatal(err)
	}
	want := "renderLimits: operations 5000000 is over the controller's cap of 2000000; renders get the cap"
	var lint []string
	for _, w := range parsed.Lint() {
		lint = append(lint, w.String())
	}
	if len(lint) != 1 || lint[0] != want {
		t.Fatalf("lint says %q, want %q", lint, want)
	}
}

// BenchmarkRenderRoutes renders a Gateway of 1,000 and of 5,000 routes with linear work
// per route: the second should take about five times the first. It reports what a
// match spends of each bound, against which DefaultBounds.PerRouteMatch is set.
func BenchmarkRenderRoutes(b *testing.B) {
	parsed, err := render.Parse(routeTable(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, routes := range []int{1000, 5000} {
		in := routesInput(routes, 1)
		b.Run(fmt.Sprint(routes, " routes"), func(b *testing.B) {
			spent, err := render.GatewaySpend(parsed, in)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parsed.Gateway(in); err != nil {
					b.Fatal(err)
				}
			}
			perMatch := func(n int) float64 { return float64(n) / float64(spent.Matches) }
			b.ReportMetric(perMatch(spent.Operations), "operations/match")
			b.ReportMetric(perMatch(spent.BuiltBytes), "built-B/match")
			b.ReportMetric(perMatch(spent.Written), "written-B/match")
			b.ReportMetric(perMatch(spent.Separators), "separators/match")
			b.ReportMetric(perMatch(spent.Held), "held-B/match")
		})
	}
}
