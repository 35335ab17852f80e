package controllers

import (
	"context"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/values"
)

// gatewayInputs is everything a Gateway's render reads.
type gatewayInputs struct {
	class  *gatewayv1.GatewayClass
	values values.Inputs
	// routes are the HTTPRoutes attached to at least one listener, by namespace/name;
	// attached maps each listener to the number of routes on it.
	routes   []gatewayv1.HTTPRoute
	attached map[gatewayv1.SectionName]int32
}

// loadInputs reads the blueprint, the policies that may apply and the routes.
func (r *GatewayReconciler) loadInputs(ctx context.Context, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass) (*gatewayInputs, error) {
	candidates, err := routesOf(ctx, r.Client, gw)
	if err != nil {
		return nil, err
	}
	snap, err := snapshot.ForGatewayAmong(ctx, r.Client, r.ControllerNamespace, gw, class, candidates)
	if err != nil {
		return nil, err
	}
	return &gatewayInputs{class: class, values: snap.Inputs, routes: snap.Routes, attached: snap.Attached}, nil
}
