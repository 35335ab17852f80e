package render

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	routekinds "github.com/gatewright/gatewright/internal/routes"
)

// RouteMatches is the size of the route input of a Gateway's render, which its bounds
// grow with (bounds.go): the matches of the rules of in.HTTPRoutes, a rule without
// matches counting one, as it matches every request.
func (in Input) RouteMatches() int {
	n := 0
	for _, route := range in.HTTPRoutes {
		n += routeMatches(route)
	}
	return n
}

// routeMatches is the matches of route's rules, a rule without matches counting one;
// the kinds whose rules have no matches count one a rule.
func routeMatches(route routekinds.Route) int {
	n := 0
	switch r := route.(type) {
	case *gatewayv1.HTTPRoute:
		for _, rule := range r.Spec.Rules {
			n += max(len(rule.Matches), 1)
		}
	case *gatewayv1.GRPCRoute:
		for _, rule := range r.Spec.Rules {
			n += max(len(rule.Matches), 1)
		}
	default:
		n = max(len(routekinds.BackendRefs(route)), 1)
	}
	return n
}
