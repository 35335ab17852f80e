package routing

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routes"
)

// RouteFacts are what a Gateway's table reads of a route besides its rules, the same for
// every table while the route's generation is: a caller that keeps them per route (the
// controller's memo of a Gateway's routes) spares each table reading every route again.
// They are never changed once made.
type RouteFacts struct {
	// Ref is the route's kind, namespace and name.
	Ref ObjectRef
	// SpecBytes is the size of its spec as JSON, which the bytes bound counts.
	SpecBytes int
	// Entries is what it weighs against the entries bound: an HTTPRoute's matches for
	// every hostname it names, on each listener it attaches to; another kind's in all.
	Entries int
}

// FactsOf is what a table reads of route besides its rules.
func FactsOf(route routes.Route) *RouteFacts {
	f := &RouteFacts{Ref: routeRef(route), SpecBytes: specSize(route)}
	if http, ok := route.(*gatewayv1.HTTPRoute); ok {
		matches := 0
		for _, rule := range http.Spec.Rules {
			matches += max(1, len(rule.Matches))
		}
		f.Entries = matches * max(1, len(http.Spec.Hostnames))
	} else {
		f.Entries = otherEntries(route)
	}
	return f
}

// facts are r's route's facts: the caller's, else read now.
func (r *RouteInput) facts() *RouteFacts {
	if r.Facts != nil {
		return r.Facts
	}
	return FactsOf(r.Route)
}
