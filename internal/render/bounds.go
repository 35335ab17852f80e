package render

import (
	"fmt"
	"time"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// A render's bounds grow with its legitimate input, so that a Gateway shared by
// thousands of routes renders while a small one keeps a tight budget against loops over
// tenant values: every bound is a base plus an allowance for each route match the render
// is given (Input.RouteMatches). A blueprint tunes both (spec.renderLimits), within caps
// the controller's operator sets.

// Allowance is an amount of each bounded resource of a render.
type Allowance struct {
	// Operations are function calls, range iterations and {{ template }}s (budget.go).
	Operations int
	// BuiltBytes is what the render's functions build, added up (allocation.go).
	BuiltBytes int
	// RenderedBytes is what the render writes (limits.go); the separators it may write
	// go with it, 100,000 for every 8 MiB.
	RenderedBytes int
	// Time is how long the render runs (budget.go).
	Time time.Duration
}

// Bounds are what the renders of a blueprint get: Base whatever their input, and
// PerRouteMatch for every route match they are given.
type Bounds struct {
	Base, PerRouteMatch Allowance
}

// DefaultBounds are the bounds of a blueprint that says nothing of them. The base is
// what a Gateway without routes needs and a tenant's loop may spend. The allowances per
// match leave room over what testdata/route-table.blueprint.yaml spends per match (an
// include, a few dicts, a printf, a toJson and a fromJson, a line of JSON): some 30
// operations, 17 KiB built, 380 bytes and 23 separators written and a tenth of a
// millisecond on a busy 2-core machine. A Gateway of 5,000 such routes renders in under
// a second, and within a third of each bound. The time allowance is the widest: the
// shipped envoy-proxy blueprint, which checks and prints each route in Envoy's terms,
// takes some 0.7 ms a match, and a machine that runs other work takes longer.
var DefaultBounds = Bounds{
	Base: Allowance{Operations: 1000000, BuiltBytes: 32 << 20, RenderedBytes: 8 << 20, Time: 2 * time.Second},
	PerRouteMatch: Allowance{
		Operations:    200,
		BuiltBytes:    64 << 10,
		RenderedBytes: 4 << 10,
		Time:          2 * time.Millisecond,
	},
}

// DefaultCaps are the caps of the controller's flags by default, and those of the
// offline commands: four times the default bounds, so that a blueprint may raise its
// bounds that far unless the operator says otherwise.
var DefaultCaps = Bounds{Base: DefaultBounds.Base.times(4), PerRouteMatch: DefaultBounds.PerRouteMatch.times(4)}

// limits are the bounds of one render, for its input.
type limits struct {
	operations, builtBytes, renderedBytes, separators int
	time                                              time.Duration
}

// maxScaledTime ends every render, however many route matches it is given: a worker
// busy for minutes is an outage of its share of the controller, and the matches that
// a Gateway's routes may bring are bounded only by the route bounds (routing.Limits),
// whose 250,000 table entries at 2 ms would be eight minutes. The shipped envoy-proxy
// renders 5,000 routes in about 4 s.
const maxScaledTime = time.Minute

// forMatches is the bounds of a render given matches route matches.
func (b Bounds) forMatches(matches int) limits {
	l := limits{
		operations:    plus(b.Base.Operations, times(matches, b.PerRouteMatch.Operations)),
		builtBytes:    plus(b.Base.BuiltBytes, times(matches, b.PerRouteMatch.BuiltBytes)),
		renderedBytes: plus(b.Base.RenderedBytes, times(matches, b.PerRouteMatch.RenderedBytes)),
		time:          min(time.Duration(plus(int(b.Base.Time), times(matches, int(b.PerRouteMatch.Time)))), maxScaledTime),
	}
	l.separators = separatorsFor(l.renderedBytes)
	return l
}

// separatorsPer8MiB are the line breaks, commas and brackets a render may write for
// every 8 MiB it may write: the output parses into as many YAML nodes, at up to
// parseBytesPerNode each, 60 MiB for 100,000 (limits.go).
const separatorsPer8MiB = 100000

func separatorsFor(renderedBytes int) int {
	return times(renderedBytes, separatorsPer8MiB) / (8 << 20)
}

func (a Allowance) times(n int) Allowance {
	return Allowance{Operations: times(a.Operations, n), BuiltBytes: times(a.BuiltBytes, n), RenderedBytes: times(a.RenderedBytes, n), Time: time.Duration(times(int(a.Time), n))}
}

// orDefault is a, each field that is not positive replaced by def's.
func (a Allowance) orDefault(def Allowance) Allowance {
	pick := func(v, d int) int {
		if v > 0 {
			return v
		}
		return d
	}
	return Allowance{
		Operations: pick(a.Operations, def.Operations), BuiltBytes: pick(a.BuiltBytes, def.BuiltBytes),
		RenderedBytes: pick(a.RenderedBytes, def.RenderedBytes), Time: time.Duration(pick(int(a.Time), int(def.Time))),
	}
}

// OrDefault is b with every field that is not positive taken from def: a cap the
// operator left unset.
func (b Bounds) OrDefault(def Bounds) Bounds {
	return Bounds{Base: b.Base.orDefault(def.Base), PerRouteMatch: b.PerRouteMatch.orDefault(def.PerRouteMatch)}
}

// plus is a+b, at most saturated.
func plus(a, b int) int { return min(a+b, saturated) }

// renderLimitsField names spec.renderLimits in warnings.
const renderLimitsField = "renderLimits"

// resolveBounds is the bounds of a blueprint whose spec.renderLimits is spec, within
// caps, and a warning for every field that asks more than its cap, which it is lowered
// to. An operator's cap below a default lowers the default without a warning.
func resolveBounds(spec *gatewrightv1alpha1.RenderLimits, caps Bounds) (Bounds, []Warning) {
	r := boundsResolver{caps: caps}
	if spec == nil {
		spec = &gatewrightv1alpha1.RenderLimits{}
	}
	per := spec.PerRouteMatch
	if per == nil {
		per = &gatewrightv1alpha1.RenderAllowance{}
	}
	def, c := DefaultBounds, caps.OrDefault(DefaultCaps)
	bounds := Bounds{
		Base: Allowance{
			Operations:    r.number("operations", spec.Operations, def.Base.Operations, c.Base.Operations),
			BuiltBytes:    r.number("builtBytes", spec.BuiltBytes, def.Base.BuiltBytes, c.Base.BuiltBytes),
			RenderedBytes: r.number("renderedBytes", spec.RenderedBytes, def.Base.RenderedBytes, c.Base.RenderedBytes),
			Time:          r.duration("time", spec.Time, def.Base.Time, c.Base.Time),
		},
		PerRouteMatch: Allowance{
			Operations:    r.number("perRouteMatch.operations", per.Operations, def.PerRouteMatch.Operations, c.PerRouteMatch.Operations),
			BuiltBytes:    r.number("perRouteMatch.builtBytes", per.BuiltBytes, def.PerRouteMatch.BuiltBytes, c.PerRouteMatch.BuiltBytes),
			RenderedBytes: r.number("perRouteMatch.renderedBytes", per.RenderedBytes, def.PerRouteMatch.RenderedBytes, c.PerRouteMatch.RenderedBytes),
			Time:          r.duration("perRouteMatch.time", per.Time, def.PerRouteMatch.Time, c.PerRouteMatch.Time),
		},
	}
	return bounds, r.warnings
}

type boundsResolver struct {
	caps     Bounds
	warnings []Warning
}

// number is the value asked for (def when nil; the API refuses negative ones), within
// limit.
func (r *boundsResolver) number(field string, asked *int64, def, limit int) int {
	v := def
	if asked != nil {
		v = int(max(min(*asked, saturated), 0))
	}
	if v > limit {
		if asked != nil {
			r.warn("%s %d is over the controller's cap of %d; renders get the cap", field, v, limit)
		}
		v = limit
	}
	return v
}

func (r *boundsResolver) duration(field string, asked *gatewayv1.Duration, def, limit time.Duration) time.Duration {
	v := def
	if asked != nil {
		d, err := time.ParseDuration(string(*asked))
		if err != nil || d < 0 {
			r.warn("%s %q is not a duration; renders get the default, %s", field, *asked, def)
		} else {
			v = d
		}
	}
	if v > limit {
		if asked != nil {
			r.warn("%s %s is over the controller's cap of %s; renders get the cap", field, *asked, limit)
		}
		v = limit
	}
	return v
}

func (r *boundsResolver) warn(format string, args ...any) {
	r.warnings = append(r.warnings, Warning{Template: renderLimitsField, Message: fmt.Sprintf(format, args...)})
}

// mebibytes writes a budget of bytes: "32 MiB", or "40.5 MiB" for one that is not a
// whole number of them.
func mebibytes(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return byteSize(n)
}
