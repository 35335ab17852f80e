package snapshot

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// contextValues computes the values of many contexts, as judging a policy needs: the
// inputs are read once per class and pair of namespaces, since one policy often reaches
// many Gateways of one class, and the values computed once per chain of policies and
// blueprint revision, since most Gateways of a namespace take the same policies and run
// the same revision. The conditions (when) of each namespace's policies share one bound
// over all the contexts (values.SharedConditions): a tenant's costly conditions on its
// many Gateways cannot hold up the verdict of a provider's policy that reaches them.
type contextValues struct {
	gatherer   *Gatherer
	blueprints translate.Parser
	inputs     map[string]*chainInputs
	shared     *values.SharedConditions
}

// chainInputs are the inputs of one class and pair of namespaces, with the values
// computed from them by chain; err says why none can be. Those read hold the live
// blueprint, and in revisions the same inputs with each blueprint revision run, whose
// number is revision.
type chainInputs struct {
	values.Inputs
	class      *gatewayv1.GatewayClass
	blueprints translate.Parser
	computed   map[string]*translate.Result // by values.Inputs.ChainKey
	revisions  map[int64]*chainInputs
	revision   int64
	err        error
}

// ErrNoRouteTemplate says that a route's values are not computed because its
// Gateway's blueprint renders nothing for routes.
var ErrNoRouteTemplate = errors.New("the blueprint has no route template of the route's kind")

// of returns c with its values, or why they are not computed at all: its class is not
// Gatewright's, its blueprint (or the revision of it the Gateway runs) is missing or
// broken (which the Gateway reports), c is a route and the blueprint renders nothing
// for routes, or its inputs could not be read.
func (v *contextValues) of(ctx context.Context, c Context) Reached {
	routeNamespace := c.Gateway.Namespace
	if c.Route != nil {
		routeNamespace = c.Route.GetNamespace()
	}
	className := string(c.Gateway.Spec.GatewayClassName)
	key := className + " " + c.Gateway.Namespace + " " + routeNamespace
	in, seen := v.inputs[key]
	if !seen {
		in = v.load(ctx, className, c.Gateway.Namespace, routeNamespace)
		if v.inputs == nil {
			v.inputs = map[string]*chainInputs{}
		}
		v.inputs[key] = in
	}
	if in.err == nil {
		in = v.atRevision(ctx, in, c.Gateway)
	}
	reached := Reached{Context: c, Revision: in.revision}
	switch {
	case in.err != nil:
		reached.Err = in.err
	case c.Route != nil && in.Blueprint.Spec.RouteTemplateOf(routes.KindOf(c.Route)) == nil:
		reached.Err = fmt.Errorf("GatewayClassBlueprint %s: %w", in.Blueprint.Name, ErrNoRouteTemplate)
	default:
		reached.Values = in.compute(c)
	}
	return reached
}

func (v *contextValues) load(ctx context.Context, className string, namespaces ...string) *chainInputs {
	class := &gatewayv1.GatewayClass{}
	if err := v.gatherer.Reader.Get(ctx, client.ObjectKey{Name: className}, class); err != nil {
		return &chainInputs{err: fmt.Errorf("GatewayClass %s: %w", className, err)}
	}
	if !translate.IsGatewrightClass(class) {
		return &chainInputs{err: fmt.Errorf("GatewayClass %s is not Gatewright's", className)}
	}
	in, err := v.gatherer.inputs(ctx, class, namespaces...)
	if err != nil {
		return &chainInputs{err: fmt.Errorf("GatewayClass %s: %w", className, err)}
	}
	if v.shared == nil {
		v.shared = values.NewSharedConditions()
	}
	in.Shared = v.shared
	return &chainInputs{Inputs: in, class: class, blueprints: v.blueprints}
}

// atRevision returns the inputs read, in, with the blueprint revision gw runs (resolve),
// as gw's reconciler renders its values; the revision must parse: the live spec may be
// one the controller refused, which no Gateway runs.
func (v *contextValues) atRevision(ctx context.Context, in *chainInputs, gw *gatewayv1.Gateway) *chainInputs {
	rev, err := v.gatherer.resolve(ctx, gw, in.Blueprint, nil)
	if err != nil {
		return &chainInputs{err: fmt.Errorf("GatewayClassBlueprint %s: %w", in.Blueprint.Name, err)}
	}
	var n int64
	if rev != nil {
		n = rev.Revision
	}
	if at, ok := in.revisions[n]; ok {
		return at
	}
	at := &chainInputs{Inputs: in.Inputs, class: in.class, blueprints: in.blueprints}
	at.revision = useRevision(&at.Inputs, rev)
	if _, err := v.blueprints.Get(at.Blueprint); err != nil {
		at.err = fmt.Errorf("GatewayClassBlueprint %s: %w", at.Blueprint.Name, err)
	}
	if in.revisions == nil {
		in.revisions = map[int64]*chainInputs{}
	}
	in.revisions[n] = at
	return at
}

// compute returns the values of c, computed once per chain.
func (in *chainInputs) compute(c Context) *translate.Result {
	key, err := in.ChainKey(c.Gateway, c.Route)
	if err != nil {
		return &translate.Result{Err: err}
	}
	if done, ok := in.computed[key]; ok {
		return done
	}
	snap := translate.Gateway{Gateway: c.Gateway, Class: in.class, Values: in.Inputs}
	res := snap.Valuing(in.blueprints, c.Route)
	if in.computed == nil {
		in.computed = map[string]*translate.Result{}
	}
	in.computed[key] = res
	return res
}
