package diff

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
)

// side is one of the two clusters compared, with its own blueprint cache: blueprints
// read from files have no uid or generation, so one cache would hand the changed side
// the base's parse of a blueprint of the same name.
type side struct {
	set                 *offline.Set
	blueprints          *render.Cache
	controllerNamespace string
}

// outcome is one Gateway's result on one side, with those of the routes on it.
type outcome struct {
	// gateway is nil when the side has no such Gateway of a Gatewright class: it
	// renders nothing there.
	gateway *gatewayv1.Gateway
	res     *translate.Result
	routes  []routeOutcome // by namespace/name
}

type routeOutcome struct {
	route routes.Route
	res   *translate.Result
	// valued tells whether the blueprint has templates for the route's kind: the
	// controller judges policies on the route only then.
	valued bool
}

// failing tells whether the Gateway fails on this side: not accepted, or not programmed
// for an error.
func (o *outcome) failing() bool {
	return o.gateway != nil && o.res.Err != nil
}

// translate computes the Gateway of key and the routes on it as the controller would,
// through the set's snapshot and the one pipeline. A class or blueprint that cannot be
// used is the Gateway's result, as the controller reports it; only a failure to read
// is an error.
func (s side) translate(key client.ObjectKey) (outcome, error) {
	ctx := context.Background()
	gw := &gatewayv1.Gateway{}
	if err := s.set.Get(ctx, key, gw); apierrors.IsNotFound(err) {
		return outcome{}, nil
	} else if err != nil {
		return outcome{}, err
	}
	class := &gatewayv1.GatewayClass{}
	if err := s.set.Get(ctx, client.ObjectKey{Name: string(gw.Spec.GatewayClassName)}, class); apierrors.IsNotFound(err) || !translate.IsGatewrightClass(class) {
		return outcome{}, nil
	} else if err != nil {
		return outcome{}, err
	}
	snap, err := s.set.Snapshot(s.controllerNamespace, gw)
	var invalid *translate.InvalidParametersError
	if translate.AsInvalidParameters(err, &invalid) {
		return outcome{gateway: gw, res: &translate.Result{Err: err}}, nil
	} else if err != nil {
		return outcome{}, fmt.Errorf("Gateway %s: %w", key, err)
	}
	out := outcome{gateway: gw, res: snap.Translate(s.blueprints, translate.Live{})}
	attached, err := s.set.Routes(snap)
	if err != nil {
		return outcome{}, fmt.Errorf("Gateway %s: %w", key, err)
	}
	refused := map[routes.Key]string{}
	for _, route := range attached {
		res := snap.TranslateRoute(s.blueprints, route, translate.Live{})
		if refusal, ok := res.RouteRefusal(key.String()); ok {
			refused[routes.KeyOf(route.Route)] = refusal
		}
		valued := snap.Values.Blueprint.Spec.RouteTemplateOf(routes.KindOf(route.Route)) != nil
		out.routes = append(out.routes, routeOutcome{route: route.Route, res: res, valued: valued})
	}
	if len(refused) > 0 {
		// As the controller does once the routes' records say so: the Gateway leaves out
		// the routes their own templates refuse.
		snap.RefusedRoutes = refused
		out.res = snap.Translate(s.blueprints, translate.Live{})
	}
	return out, nil
}

// release lets go of what the judgement of policies does not read, the rendered
// objects and the render's input: a fleet's would otherwise be held to the end.
func (o *outcome) release() {
	if o.res == nil {
		return
	}
	o.res.Output, o.res.Input = nil, render.Input{}
	for _, route := range o.routes {
		route.res.Output, route.res.Input = nil, render.Input{}
	}
}
