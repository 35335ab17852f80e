package routing

import (
	"cmp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GRPCMatch is one match of one rule of a GRPCRoute, with the rule's filters and
// backends: what the Gateway does with a gRPC request the match takes.
type GRPCMatch struct {
	Route ObjectRef `json:"route"`
	// Rule and Match are indexes into the route's spec.rules and the rule's matches; a
	// rule without matches has one, Match 0, that takes every request.
	Rule     int    `json:"rule"`
	RuleName string `json:"ruleName"`
	Match    int    `json:"match"`
	// Name is grpcroute/namespace/name/rule/R/match/M, unique in the table.
	Name string `json:"name"`
	// Method is the service and method match, its type always set; an empty service or
	// method takes any.
	Method GRPCMethodMatch `json:"method"`
	// Headers are the header matches, names in lower case, types always set.
	Headers []ValueMatch `json:"headers"`
	// Filters are the rule's filters in order.
	Filters []gatewayv1.GRPCRouteFilter `json:"filters"`
	// Backends are the rule's backendRefs in order.
	Backends []GRPCBackend `json:"backends"`
}

// GRPCMethodMatch is a gRPC service and method match: Exact or RegularExpression.
type GRPCMethodMatch struct {
	Type    string `json:"type"`
	Service string `json:"service"`
	Method  string `json:"method"`
}

// GRPCBackend is one backendRef of a GRPCRoute rule.
type GRPCBackend struct {
	Backend `json:",inline"`
	// Filters are the backendRef's own filters, applied to what it receives.
	Filters []gatewayv1.GRPCRouteFilter `json:"filters"`
}

// grpcMatches are the matches of every rule of route, r's GRPCRoute, in rule and match
// order.
func grpcMatches(r *RouteInput, route *gatewayv1.GRPCRoute) []GRPCMatch {
	ref := routeRef(route)
	backends := backendsByRule(r)
	var out []GRPCMatch
	for i := range route.Spec.Rules {
		rule := &route.Spec.Rules[i]
		filters := copyGRPCFilters(rule.Filters)
		grpcBackends := make([]GRPCBackend, len(rule.BackendRefs))
		for k := range rule.BackendRefs {
			grpcBackends[k] = GRPCBackend{Backend: backends[i][k], Filters: copyGRPCFilters(rule.BackendRefs[k].Filters)}
		}
		matches := rule.Matches
		if len(matches) == 0 {
			matches = []gatewayv1.GRPCRouteMatch{{}}
		}
		for j := range matches {
			m := GRPCMatch{Route: ref, Rule: i, Match: j, Name: matchName(ref, i, j), Filters: filters, Backends: grpcBackends}
			if rule.Name != nil {
				m.RuleName = string(*rule.Name)
			}
			normalizeGRPCMatch(&m, &matches[j])
			out = append(out, m)
		}
	}
	return out
}

// normalizeGRPCMatch fills m's method and header matches from spec, with the types the
// API gives unset ones (Exact).
func normalizeGRPCMatch(m *GRPCMatch, spec *gatewayv1.GRPCRouteMatch) {
	m.Method = GRPCMethodMatch{Type: string(gatewayv1.GRPCMethodMatchExact)}
	if method := spec.Method; method != nil {
		if method.Type != nil {
			m.Method.Type = string(*method.Type)
		}
		if method.Service != nil {
			m.Method.Service = *method.Service
		}
		if method.Method != nil {
			m.Method.Method = *method.Method
		}
	}
	m.Headers = make([]ValueMatch, 0, len(spec.Headers))
	for _, h := range spec.Headers {
		v := ValueMatch{Type: string(gatewayv1.GRPCHeaderMatchExact), Name: strings.ToLower(string(h.Name)), Value: h.Value}
		if h.Type != nil {
			v.Type = string(*h.Type)
		}
		m.Headers = append(m.Headers, v)
	}
}

// copyGRPCFilters copies filters, so that the table shares nothing with the routes.
func copyGRPCFilters(filters []gatewayv1.GRPCRouteFilter) []gatewayv1.GRPCRouteFilter {
	out := make([]gatewayv1.GRPCRouteFilter, len(filters))
	for i := range filters {
		out[i] = *filters[i].DeepCopy()
	}
	return out
}

// grpcPrecedence orders the GRPCRoute matches of one hostname as the GRPCRoute rules
// say (hostname specificity is the host's): the most characters in the service, then
// in the method, then the most header matches. Ties go to the oldest route, then the
// first by namespace/name, then the first rule and match in the route's order.
func grpcPrecedence(a, b *GRPCMatch, createdA, createdB metav1.Time) int {
	if c := cmp.Compare(len(b.Method.Service), len(a.Method.Service)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(b.Method.Method), len(a.Method.Method)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(b.Headers), len(a.Headers)); c != 0 {
		return c
	}
	return tieBreak(place{a.Route, createdA, a.Rule, a.Match}, place{b.Route, createdB, b.Rule, b.Match})
}
