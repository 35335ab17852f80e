package translate

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/values"
)

// Parser parses a blueprint, once per generation when it caches (render.Cache does).
type Parser interface {
	Get(*gatewrightv1alpha1.GatewayClassBlueprint) (*render.Blueprint, error)
}

// Gateway is the snapshot of one Gateway: everything its result, and the results of
// the routes on it, are computed from.
type Gateway struct {
	Gateway *gatewayv1.Gateway
	Class   *gatewayv1.GatewayClass
	// Values hold the blueprint and the policies in view: those of the controller
	// namespace, the Gateway's, and (for a route) the route's.
	Values values.Inputs
	// Revision is the blueprint revision whose spec Values.Blueprint holds; 0 for the
	// live spec (offline, or a blueprint without revisions).
	Revision int64
	// Routes are the HTTPRoutes attached to at least one listener, by namespace/name;
	// Attached counts them per listener.
	Routes   []*gatewayv1.HTTPRoute
	Attached map[gatewayv1.SectionName]int32
	// OtherRoutes are the routes of the other kinds (GRPCRoute, TLSRoute, TCPRoute,
	// UDPRoute) attached to at least one listener, by kind, then namespace/name; Attached
	// counts them too.
	OtherRoutes []routes.Route
	// RouteInputs are each of Routes, then each of OtherRoutes, in their order, with the
	// listeners it attaches to and its backendRefs as they resolved: what the route table
	// is built from. They are at hand by index, not looked up by each route's name: an
	// edit on a Gateway of thousands of routes builds its table again.
	RouteInputs []routing.RouteInput
	// RouteLimits bound the routes the Gateway takes; unset bounds are the defaults.
	RouteLimits routing.Limits
	// CutoffRecorded says that RecordedCutoff, as the Gateway's record holds it, decides
	// which routes past a bound the table leaves out, instead of RouteLimits: a command
	// knows what the controller decided, not the limits its operator set.
	CutoffRecorded bool
	RecordedCutoff *gatewrightv1alpha1.RouteCutoff
	// RefusedRoutes are the routes of any kind their own templates refused on the
	// Gateway, with why: the table, and the gateway templates, leave them out.
	RefusedRoutes map[routes.Key]string
	// Listeners are what the Gateway API rules say of each listener, certificateRefs
	// resolved.
	Listeners []listeners.Status
	// ListenerSets are the verdicts of the ListenerSets naming the Gateway as their parent
	// (listeners.EvaluateSets): the listeners of those attached join the Gateway's in its
	// gateway templates' .Listeners.
	ListenerSets []listeners.SetVerdict
	// Overrides are values from the command line (`gatewright render --set`, values
	// files), merged in order over the effective values as JSON merge patches: objects
	// merge key by key, null removes a key, anything else replaces. Like Helm's --set
	// over a chart's values, they beat every level of the chain, the blueprint's
	// overrides included: they answer "what would render with these values", which no
	// policy in a cluster can force. The valuesSchema is checked on the result. The
	// controller never sets them.
	Overrides []map[string]any
	// Memo keeps the route table's matches and their template data from one render of
	// the Gateway to the next: the controller's, one per Gateway; nil computes them all.
	Memo *Memo
}

// Route is the snapshot of one route, of any kind, on a parent Gateway.
type Route struct {
	Route routes.Route
	// BackendRefs are the route's backendRefs, resolved.
	BackendRefs []attach.BackendRef
}

// Live is what a render reads of the cluster; the zero Live renders offline (every
// dependency ready, .Resources the rendered objects).
type Live struct {
	Objects map[string][]*unstructured.Unstructured
	// IsReady judges an object by kstatus (apply.Readiness); the render judges those of
	// templates with a readyWhen by it instead (render.Blueprint.Readiness).
	IsReady      render.Readiness
	IsNamespaced func(schema.GroupVersionKind) (bool, error)
}

// Result is the complete outcome of one Gateway or route.
type Result struct {
	// Blueprint is the parsed blueprint; nil when it does not parse (Err says why).
	Blueprint *render.Blueprint
	// Values are the values with provenance; nil when they could not be computed. They
	// may be set together with Err (a valuesSchema refusal reports the policies).
	Values *values.Result
	// Output is the render; nil with Err.
	Output *render.Output
	// Table is the Gateway's route table, and Cutoff where its routes went past a
	// Gateway-wide bound (nil when all fit); both nil for a route's result.
	Table  *routing.Table
	Cutoff *routing.Cutoff
	// Input is what the render read, for a second render against live objects (settle).
	// Its IsReady is the blueprint's judgement of objects, for the applier's too.
	Input render.Input
	// ValuesTook and RenderTook are how long each step took, for metrics.
	ValuesTook, RenderTook time.Duration
	// Err is the first error, the blueprint's name, template and line included when it
	// comes from a template; Classify says what to do about it.
	Err error
}

// Warnings name the blocks that applied because their condition could not be evaluated.
func (r *Result) Warnings() []string {
	if r.Values == nil {
		return nil
	}
	return r.Values.FailedClosedWarnings()
}

// Unused are the values no template reads and the valuesSchema does not declare.
func (r *Result) Unused() []values.UnusedValue {
	if r.Values == nil || r.Blueprint == nil {
		return nil
	}
	return r.Blueprint.UnusedValues(r.Values)
}

// Valuing computes only the values, of the Gateway or, when route is not nil, of route
// on it: a pipeline that stops before rendering.
func (g *Gateway) Valuing(p Parser, route routes.Route) *Result {
	res := &Result{}
	in, ok := g.prepare(p, res)
	if !ok {
		return res
	}
	start := time.Now()
	defer func() { res.ValuesTook = time.Since(start) }()
	res.Values, res.Err = overridden(in, g.Overrides, func(in values.Inputs) (*values.Result, error) {
		if route != nil {
			return in.ForRoute(g.Gateway, route)
		}
		return in.ForGateway(g.Gateway)
	})
	return res
}

// Translate computes the values of the Gateway and renders its templates.
func (g *Gateway) Translate(p Parser, live Live) *Result {
	res := g.Valuing(p, nil)
	if res.Err != nil {
		return res
	}
	res.Input = g.renderInput(res.Blueprint, res.Values, live, "")
	res.Table, res.Cutoff = g.RouteTable()
	res.Input.RouteTable = res.Table
	if g.Memo != nil {
		res.Input.TableMemo = g.Memo.Table
	}
	refused := refusedIn(res.Table)
	res.Input.HTTPRoutes = g.acceptedRoutes(refused)
	res.Input.OtherRoutes = g.acceptedOthers(refused)
	res.Input.ListenerSets = g.ListenerSets
	start := time.Now()
	res.Output, res.Err = res.Blueprint.Gateway(res.Input)
	res.RenderTook = time.Since(start)
	return res
}

// TranslateRoute computes the values of route on the Gateway and renders its templates.
func (g *Gateway) TranslateRoute(p Parser, route Route, live Live) *Result {
	res := g.Valuing(p, route.Route)
	if res.Err != nil {
		return res
	}
	res.Input = g.renderInput(res.Blueprint, res.Values, live, routes.KindOf(route.Route))
	res.Input.BackendRefs = route.BackendRefs
	start := time.Now()
	res.Output, res.Err = res.Blueprint.Route(res.Input, route.Route)
	res.RenderTook = time.Since(start)
	return res
}

// RouteTable is the Gateway's route table: its listeners with the routes of every kind
// attached to them, as the Gateway API's routing rules order them, the newest routes
// past a Gateway-wide bound left out, and so the newer of an HTTPRoute and a GRPCRoute
// sharing a hostname on a listener; and where its routes went past the bound, nil when
// all fit.
func (g *Gateway) RouteTable() (*routing.Table, *routing.Cutoff) {
	// The table refuses routes in its copy of the inputs.
	in := routing.Input{Gateway: g.Gateway, Listeners: g.Listeners, ListenerSets: g.ListenerSets, Routes: slices.Clone(g.RouteInputs)}
	if g.Memo != nil {
		in.Memo = &g.Memo.Matches
	}
	if len(g.RefusedRoutes) > 0 {
		for i := range in.Routes {
			if message, refused := g.RefusedRoutes[routes.KeyOf(in.Routes[i].Route)]; refused {
				in.Routes[i].Refusal = &routing.Refusal{Reason: string(gatewayv1.RouteReasonUnsupportedValue), Message: message}
			}
		}
	}
	var cutoff *routing.Cutoff
	if g.CutoffRecorded {
		cutoff = cutoffOf(g.RecordedCutoff)
		cutoff.Refuse(in.Routes)
	} else {
		cutoff = routing.Admit(in.Routes, g.RouteLimits)
	}
	routing.RefuseKindConflicts(in.Routes, routing.ListenerHostnames(in))
	return routing.Build(in), cutoff
}

// refusedIn are the routes table refuses, whatever refused them (their own templates,
// a Gateway-wide bound, an older route of the other kind); nil when it refuses none.
func refusedIn(table *routing.Table) map[routes.Key]bool {
	var out map[routes.Key]bool
	for _, v := range table.Routes {
		if !v.Accepted {
			if out == nil {
				out = map[routes.Key]bool{}
			}
			out[routes.Key{Kind: v.Kind, Namespace: v.Namespace, Name: v.Name}] = true
		}
	}
	return out
}

// acceptedRoutes are the Gateway's routes but those refused (refusedIn): what its
// templates see as .HTTPRoutes, as the route table holds them.
func (g *Gateway) acceptedRoutes(refused map[routes.Key]bool) []*gatewayv1.HTTPRoute {
	if len(refused) == 0 {
		return g.Routes
	}
	var out []*gatewayv1.HTTPRoute
	for _, route := range g.Routes {
		if !refused[routes.KeyOf(route)] {
			out = append(out, route)
		}
	}
	return out
}

// acceptedOthers are the Gateway's routes of the other kinds but those refused
// (refusedIn): what its templates see as .GRPCRoutes, .TLSRoutes, .TCPRoutes and
// .UDPRoutes.
func (g *Gateway) acceptedOthers(refused map[routes.Key]bool) []routes.Route {
	if len(refused) == 0 {
		return g.OtherRoutes
	}
	var out []routes.Route
	for _, route := range g.OtherRoutes {
		if !refused[routes.KeyOf(route)] {
			out = append(out, route)
		}
	}
	return out
}

// prepare parses the blueprint and gives the values inputs its valuesSchema. A
// blueprint that does not parse cannot be used: the Gateway is not accepted.
func (g *Gateway) prepare(p Parser, res *Result) (values.Inputs, bool) {
	parsed, err := p.Get(g.Values.Blueprint)
	if err != nil {
		res.Err = &InvalidParametersError{Message: err.Error(), Cause: err}
		return values.Inputs{}, false
	}
	res.Blueprint = parsed
	in := g.Values
	in.Schema = parsed.ValuesSchema()
	return in, true
}

// renderInput is what the render of the Gateway's templates (routeKind empty) or of a
// route of routeKind reads.
func (g *Gateway) renderInput(parsed *render.Blueprint, vals *values.Result, live Live, routeKind string) render.Input {
	return render.Input{
		Values:       vals.Values,
		Gateway:      g.Gateway,
		GatewayClass: g.Class,
		Listeners:    g.Listeners,
		Live:         live.Objects,
		IsReady:      parsed.Readiness(routeKind, live.IsReady),
		IsNamespaced: live.IsNamespaced,
	}
}

// IsGatewrightClass tells whether class is one of Gatewright's: its controllerName is
// Gatewright's. A nil class (one that is not there) is not.
func IsGatewrightClass(class *gatewayv1.GatewayClass) bool {
	return class != nil && gatewrightv1alpha1.IsGatewright(class.Spec.ControllerName)
}

// BlueprintRef names the GatewayClassBlueprint that class's spec.parametersRef refers
// to; ok is false when it refers to no GatewayClassBlueprint (group gatewright.dev).
func BlueprintRef(class *gatewayv1.GatewayClass) (name string, ok bool) {
	ref := class.Spec.ParametersRef
	if ref == nil || string(ref.Group) != gatewrightv1alpha1.GroupVersion.Group || string(ref.Kind) != gatewrightv1alpha1.KindGatewayClassBlueprint {
		return "", false
	}
	return ref.Name, true
}

// ClassBlueprint names the GatewayClassBlueprint that class uses: the one its
// spec.parametersRef refers to, when class is Gatewright's. ok is false for a class that
// is missing, another controller's, or refers to no blueprint.
func ClassBlueprint(class *gatewayv1.GatewayClass) (name string, ok bool) {
	if !IsGatewrightClass(class) {
		return "", false
	}
	return BlueprintRef(class)
}

// UsesBlueprint tells whether class uses the GatewayClassBlueprint named blueprint.
func UsesBlueprint(class *gatewayv1.GatewayClass, blueprint string) bool {
	name, ok := ClassBlueprint(class)
	return ok && name == blueprint
}
