package render

import (
	"strings"
	"testing"
	"time"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

func TestBoundsResolveWithinCaps(t *testing.T) {
	def := DefaultBounds
	tests := []struct {
		name     string
		spec     string // spec.renderLimits in YAML
		caps     Bounds
		want     func(*Bounds)
		warnings []string
	}{
		{name: "a blueprint without renderLimits gets the defaults", want: func(*Bounds) {}},
		{name: "a blueprint raises its operations and time within the caps",
			spec: "{operations: 3000000, time: 5s}",
			want: func(b *Bounds) { b.Base.Operations, b.Base.Time = 3000000, 5*time.Second }},
		{name: "a blueprint lowers its bytes built and its allowance of time per match",
			spec: "{builtBytes: 1048576, perRouteMatch: {time: 0s}}",
			want: func(b *Bounds) { b.Base.BuiltBytes, b.PerRouteMatch.Time = 1<<20, 0 }},
		{name: "a time that is not a duration keeps the default, with a warning",
			spec:     "{time: soon}",
			want:     func(*Bounds) {},
			warnings: []string{`renderLimits: time "soon" is not a duration; renders get the default, 2s`}},
		{name: "a blueprint lowers its allowance of operations per match to nothing",
			spec: "{perRouteMatch: {operations: 0}}",
			want: func(b *Bounds) { b.PerRouteMatch.Operations = 0 }},
		{name: "a blueprint asking above a cap gets the cap and a warning",
			spec: "{operations: 9000000, renderedBytes: 1073741824, time: 1h, perRouteMatch: {builtBytes: 10485760}}",
			want: func(b *Bounds) {
				b.Base.Operations, b.Base.RenderedBytes, b.Base.Time = 4000000, 32<<20, 8*time.Second
				b.PerRouteMatch.BuiltBytes = 256 << 10
			},
			warnings: []string{
				"renderLimits: operations 9000000 is over the controller's cap of 4000000; renders get the cap",
				"renderLimits: renderedBytes 1073741824 is over the controller's cap of 33554432; renders get the cap",
				"renderLimits: time 1h is over the controller's cap of 8s; renders get the cap",
				"renderLimits: perRouteMatch.builtBytes 10485760 is over the controller's cap of 262144; renders get the cap",
			}},
		{name: "an operator's cap below a default lowers the default, without a warning",
			caps: Bounds{Base: Allowance{Time: time.Second}, PerRouteMatch: Allowance{Operations: 50}},
			want: func(b *Bounds) { b.Base.Time, b.PerRouteMatch.Operations = time.Second, 50 }},
		{name: "the operator's caps hold what a blueprint asks above them",
			spec:     "{time: 3s}",
			caps:     Bounds{Base: Allowance{Time: 2500 * time.Millisecond}},
			want:     func(b *Bounds) { b.Base.Time = 2500 * time.Millisecond },
			warnings: []string{"renderLimits: time 3s is over the controller's cap of 2.5s; renders get the cap"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var spec *gatewrightv1alpha1.RenderLimits
			if tt.spec != "" {
				spec = &gatewrightv1alpha1.RenderLimits{}
				if err := yaml.UnmarshalStrict([]byte(tt.spec), spec); err != nil {
					t.Fatal(err)
				}
			}
			want := def
			tt.want(&want)
			got, warnings := resolveBounds(spec, tt.caps)
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
			var messages []string
			for _, w := range warnings {
				messages = append(messages, w.String())
			}
			if strings.Join(messages, "\n") != strings.Join(tt.warnings, "\n") {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(messages, "\n"), strings.Join(tt.warnings, "\n"))
			}
		})
	}
}

func TestBoundsGrowWithRouteMatches(t *testing.T) {
	tests := []struct {
		name    string
		matches int
		want    limits
	}{
		{name: "a Gateway without routes keeps the base", matches: 0,
			want: limits{operations: 1000000, builtBytes: 32 << 20, renderedBytes: 8 << 20, separators: 100000, time: 2 * time.Second}},
		{name: "a route of 128 matches adds 128 allowances", matches: 128,
			want: limits{operations: 1025600, builtBytes: 40 << 20, renderedBytes: 8<<20 + 512<<10, separators: 106250, time: 2256 * time.Millisecond}},
		{name: "5,000 matches add 5,000 allowances", matches: 5000,
			want: limits{operations: 2000000, builtBytes: 32<<20 + 5000*64<<10, renderedBytes: 8<<20 + 5000*4<<10, separators: 344140, time: 12 * time.Second}},
		{name: "a render's time stops growing at a minute, however many matches", matches: 250000,
			want: limits{operations: 51000000, builtBytes: 32<<20 + 250000*64<<10, renderedBytes: 8<<20 + 250000*4<<10, separators: separatorsFor(8<<20 + 250000*4<<10), time: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultBounds.forMatches(tt.matches); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	huge := Bounds{Base: Allowance{Operations: 1}, PerRouteMatch: Allowance{Operations: saturated}}.forMatches(saturated)
	if huge.operations != saturated {
		t.Errorf("bounds past every budget give %d operations, want them saturated", huge.operations)
	}
}

func TestRouteMatchesCountRulesWithoutMatchesOnce(t *testing.T) {
	in := Input{HTTPRoutes: []*gatewayv1.HTTPRoute{
		{Spec: gatewayv1.HTTPRouteSpec{Rules: []gatewayv1.HTTPRouteRule{{Matches: make([]gatewayv1.HTTPRouteMatch, 3)}, {}}}},
		{Spec: gatewayv1.HTTPRouteSpec{Rules: []gatewayv1.HTTPRouteRule{{Matches: make([]gatewayv1.HTTPRouteMatch, 128)}}}},
		{},
	}}
	if got := in.RouteMatches(); got != 3+1+128 {
		t.Errorf("got %d route matches, want 132", got)
	}
}

// Parsing the output draws on a budget of its own: past it the render stops, and no
// draw leaves the budget of bytes built, or any message, with less than nothing.
func TestParseDrawsAreChecked(t *testing.T) {
	b := &binder{}
	b.reset(Bounds{Base: Allowance{Operations: 1, BuiltBytes: 1000, RenderedBytes: 8 << 10, Time: time.Second}}.forMatches(0))
	t.Cleanup(b.release)
	line := strings.Repeat("a: b\n", 40) // 40 nodes
	var err error
	for range 10 {
		if err = b.drawParse(line); err != nil {
			break
		}
	}
	want := "parsing the output would allocate 24000 bytes, over the 17584 bytes left of the render's 113584 bytes for parsing"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	if b.parsed > times(b.limits.separators+parsedTemplates, parseBytesPerNode)+times(b.limits.renderedBytes, parseBytesPerScalarByte) {
		t.Fatalf("parsing drew %d bytes, past its budget", b.parsed)
	}
	if err := b.allocate("regexFind", 1472); err == nil || !strings.Contains(err.Error(), "over the 1000 bytes left of the render's 1000 bytes budget") {
		t.Fatalf("after parsing, the bytes built are not whole: %v", err)
	}
	if left := b.left(); left != 1000 {
		t.Fatalf("%d bytes built left, want 1000", left)
	}
	b.built = 5000 // however a draw came to pass the budget
	if err := b.allocate("dict", 96); err == nil || !strings.Contains(err.Error(), "dict would allocate 96 bytes, over the 0 bytes left") {
		t.Fatalf("got %v, want a refusal that leaves nothing, not less", err)
	}
}
