package render

import gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

// RouteMatches is the size of the route input of a Gateway's render, which its bounds
// grow with (bounds.go): the matches of the rules of in.HTTPRoutes, a rule without
// matches counting one, as it matches every request.
func (in Input) RouteMatches() int {
	n := 0
	for i := range in.HTTPRoutes {
		n += routeMatches(&in.HTTPRoutes[i])
	}
	return n
}

// routeMatches is the matches of route's rules, a rule without matches counting one.
func routeMatches(route *gatewayv1.HTTPRoute) int {
	n := 0
	for _, rule := range route.Spec.Rules {
		n += max(len(rule.Matches), 1)
	}
	return n
}
