package routing

import (
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routes"
)

// L4Route is a TLSRoute on a TLS listener's host, or a TCPRoute or UDPRoute on a TCP or
// UDP listener: these match by hostname (SNI) or port alone, so a route is its
// backends.
type L4Route struct {
	Route ObjectRef `json:"route"`
	// Backends are the backendRefs of the route's rule (the API allows one) in order.
	Backends []Backend `json:"backends"`
}

// tlsHosts are the hosts of a TLS listener of hostname: the TLSRoutes by effective
// hostname (the SNI they serve). Unlike an HTTP listener's own hostname, a name no
// route serves is no host: a TLS listener refuses its connections.
func tlsHosts(hostname string, attached []*RouteInput) []Host {
	out := []Host{}
	at := map[string]int{}
	for _, r := range oldestFirst(attached) {
		route, ok := r.Route.(*gatewayv1.TLSRoute)
		if !ok {
			continue
		}
		l4 := l4Route(r)
		for _, name := range effectiveHostnames(hostname, route.Spec.Hostnames) {
			i, seen := at[name]
			if !seen {
				i = len(out)
				at[name] = i
				out = append(out, Host{Hostname: name, Matches: []*Match{}})
			}
			out[i].TLSRoutes = append(out[i].TLSRoutes, l4)
		}
	}
	slices.SortFunc(out, func(a, b Host) int { return compareHostnames(a.Hostname, b.Hostname) })
	return out
}

// l4Routes are the routes of a TCP or UDP listener: its TCPRoutes or UDPRoutes.
func l4Routes(protocol gatewayv1.ProtocolType, attached []*RouteInput) []L4Route {
	kind := routes.KindTCPRoute
	if protocol == gatewayv1.UDPProtocolType {
		kind = routes.KindUDPRoute
	}
	out := []L4Route{}
	for _, r := range oldestFirst(attached) {
		if routes.KindOf(r.Route) == kind {
			out = append(out, l4Route(r))
		}
	}
	return out
}

func l4Route(r *RouteInput) L4Route {
	out := L4Route{Route: routeRef(r.Route), Backends: []Backend{}}
	for _, rule := range backendsByRule(r) {
		out.Backends = append(out.Backends, rule...)
	}
	return out
}

// oldestFirst is routes by age, then namespace/name: the order the API settles
// conflicts between routes in.
func oldestFirst(attached []*RouteInput) []*RouteInput {
	out := slices.Clone(attached)
	slices.SortStableFunc(out, func(a, b *RouteInput) int {
		return admissionOrder(admissionKeyOf(a.Route), admissionKeyOf(b.Route))
	})
	return out
}
