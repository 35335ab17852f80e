package snapshot

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// Gateway gathers the snapshot of gw, of class: the blueprint at the revision gw runs
// and the policies of the controller's and the Gateway's namespaces, its listeners
// judged by what that revision serves, the routes attached with their backendRefs
// resolved and what the controller decided of them; or, as opts say, only what its
// route table or its values are computed from.
func (g *Gatherer) Gateway(ctx context.Context, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, opts ...Option) (*translate.Gateway, error) {
	o := optionsOf(opts)
	if o.routeTable {
		// A class whose blueprint cannot be used programs nothing, but the table still
		// says what the Gateway API makes of the routes, by what a blueprint that says
		// nothing of what it serves serves.
		serves, err := g.Serves(ctx, gw, class, opts...)
		if err != nil && !(&translate.Result{Err: err}).Refused() {
			return nil, err
		}
		routed, err := g.routeTable(ctx, gw, class, serves, o)
		if err != nil {
			return nil, err
		}
		return routed, g.decided(ctx, routed)
	}
	snap, err := g.values(ctx, gw, class, nil)
	if err != nil {
		return nil, err
	}
	if err := g.atRevision(ctx, snap, o); err != nil {
		return nil, err
	}
	if o.valuesOnly {
		return snap, nil
	}
	routed, err := g.routeTable(ctx, gw, class, translate.Serves(&snap.Values.Blueprint.Spec), o)
	if err != nil {
		return nil, err
	}
	snap.Listeners, snap.ListenerSets, snap.Routes, snap.OtherRoutes, snap.Attached = routed.Listeners, routed.ListenerSets, routed.Routes, routed.OtherRoutes, routed.Attached
	snap.RouteInputs, snap.RouteLimits = routed.RouteInputs, routed.RouteLimits
	return snap, g.decided(ctx, snap)
}

// routeTable gathers what gw's route table is computed from but the controller's
// decisions (decided), on a class that serves what serves says: its listeners judged,
// and the routes attached with their backendRefs resolved.
func (g *Gatherer) routeTable(ctx context.Context, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, serves listeners.Serves, o options) (*translate.Gateway, error) {
	judged := o.judged
	if !o.haveJudged {
		var err error
		if judged, err = g.Listeners(ctx, gw, serves); err != nil {
			return nil, g.reading(err, "judging the listeners of Gateway %s/%s", gw.Namespace, gw.Name)
		}
	}
	candidates := o.candidates
	if !o.haveRoutes {
		var err error
		if candidates, err = g.candidateRoutes(ctx, gw); err != nil {
			return nil, err
		}
	}
	sets, setVerdicts := o.sets, []listeners.SetVerdict(nil)
	if !o.haveSets {
		var err error
		if sets, setVerdicts, err = g.readListenerSets(ctx, gw, serves, judged); err != nil {
			return nil, err
		}
		if candidates, err = g.routesOnListenerSets(ctx, attachedOnly(sets), candidates); err != nil {
			return nil, err
		}
	}
	snap, err := g.attachedWithBackends(ctx, gw, class, serves, candidates, o.others, sets)
	if err != nil {
		return nil, g.reading(err, "Gateway %s/%s", gw.Namespace, gw.Name)
	}
	snap.Listeners, snap.ListenerSets, snap.RouteLimits = judged, setVerdicts, g.RouteLimits
	return snap, nil
}

// attachedWithBackends is gw's snapshot with the routes attached among candidates and
// their backendRefs resolved.
func (g *Gatherer) attachedWithBackends(ctx context.Context, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, serves listeners.Serves, candidates []*gatewayv1.HTTPRoute, others []routes.Route, sets []listenerSet) (*translate.Gateway, error) {
	a, err := g.attached(ctx, gw, serves, candidates, others, sets)
	if err != nil {
		return nil, err
	}
	snap := &translate.Gateway{Gateway: gw, Class: class}
	snap.Routes, snap.OtherRoutes, snap.Attached = a.routes, a.others, a.counts
	snap.RouteInputs = make([]routing.RouteInput, 0, len(a.routes)+len(a.others))
	var memo *BackendMemo
	if g.BackendMemos != nil {
		memo = g.BackendMemos(gw)
	}
	complete := false
	if memo != nil {
		memo.begin()
		defer func() { memo.end(complete) }()
	}
	exists := g.serviceExists(ctx)
	resolve := func(route routes.Route, listeners []gatewayv1.SectionName, facts *routing.RouteFacts) error {
		refs, held, err := memo.resolved(route, exists)
		if err != nil {
			return err
		}
		if !held {
			backends, err := g.BackendRefs(ctx, route)
			if err != nil {
				return err
			}
			refs = memo.keep(route, backends.BackendRefs)
		}
		snap.RouteInputs = append(snap.RouteInputs, routing.RouteInput{Route: route, Listeners: listeners, BackendRefs: refs, Facts: facts})
		return nil
	}
	for i, route := range a.routes {
		if err := resolve(route, a.routeListeners[i], a.routeFacts[i]); err != nil {
			return nil, err
		}
	}
	for i, route := range a.others {
		if err := resolve(route, a.otherListeners[i], nil); err != nil {
			return nil, err
		}
	}
	complete = true
	return snap, nil
}

// values gathers what the values of gw, of class, are computed from, or those of route
// on gw when route is not nil: the live blueprint and the policies of the controller's,
// the Gateway's and the route's namespaces.
func (g *Gatherer) values(ctx context.Context, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, route routes.Route) (*translate.Gateway, error) {
	namespaces := []string{gw.Namespace}
	if route != nil {
		namespaces = append(namespaces, route.GetNamespace())
	}
	in, err := g.inputs(ctx, class, namespaces...)
	if err != nil {
		return nil, g.reading(err, "GatewayClass %s", class.Name)
	}
	return &translate.Gateway{Gateway: gw, Class: class, Values: in}, nil
}

// inputs reads the blueprint of class and the policies that may apply to the Gateways
// of the given namespaces and to routes in them: those of the controller namespace and
// of each namespace. The values engine ignores those that do not apply.
func (g *Gatherer) inputs(ctx context.Context, class *gatewayv1.GatewayClass, namespaces ...string) (values.Inputs, error) {
	bp, err := g.Blueprint(ctx, class)
	if err != nil {
		return values.Inputs{}, err
	}
	in := values.Inputs{ControllerNamespace: g.ControllerNamespace, Blueprint: bp}
	for _, namespace := range unique(append([]string{g.ControllerNamespace}, namespaces...)) {
		if err := g.addPolicies(ctx, &in, namespace); err != nil {
			return values.Inputs{}, err
		}
	}
	return in, nil
}

// Routes are the routes of snap, a Gateway's full snapshot, each ready to translate on
// it: its HTTPRoutes, then those of the other kinds its blueprint has route templates
// for. The policies of their namespaces are added to snap's values inputs.
func (g *Gatherer) Routes(ctx context.Context, snap *translate.Gateway) ([]translate.Route, error) {
	seen := map[string]bool{snap.Gateway.Namespace: true, snap.Values.ControllerNamespace: true}
	addPolicies := func(route routes.Route) error {
		if seen[route.GetNamespace()] {
			return nil
		}
		seen[route.GetNamespace()] = true
		return g.addPolicies(ctx, &snap.Values, route.GetNamespace())
	}
	// RouteInputs hold Routes, then OtherRoutes, in order.
	out := make([]translate.Route, 0, len(snap.Routes))
	for i, route := range snap.Routes {
		if err := addPolicies(route); err != nil {
			return nil, err
		}
		out = append(out, translate.Route{Route: route, BackendRefs: snap.RouteInputs[i].BackendRefs})
	}
	for i, route := range snap.OtherRoutes {
		if snap.Values.Blueprint.Spec.RouteTemplateOf(routes.KindOf(route)) == nil {
			continue // nothing rendered for it
		}
		if err := addPolicies(route); err != nil {
			return nil, err
		}
		out = append(out, translate.Route{Route: route, BackendRefs: snap.RouteInputs[len(snap.Routes)+i].BackendRefs})
	}
	return out, nil
}

// addPolicies adds the policies of namespace to in.
func (g *Gatherer) addPolicies(ctx context.Context, in *values.Inputs, namespace string) error {
	var classConfigs gatewrightv1alpha1.GatewayClassConfigList
	if err := g.Reader.List(ctx, &classConfigs, client.InNamespace(namespace)); err != nil {
		return err
	}
	in.GatewayClassConfigs = append(in.GatewayClassConfigs, classConfigs.Items...)
	var configs gatewrightv1alpha1.GatewayConfigList
	if err := g.Reader.List(ctx, &configs, client.InNamespace(namespace)); err != nil {
		return err
	}
	in.GatewayConfigs = append(in.GatewayConfigs, configs.Items...)
	return nil
}

func unique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
