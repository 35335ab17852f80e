package routing

import (
	"fmt"
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/routes"
)

// ReasonHostnameConflict is the reason of Accepted=False on an HTTPRoute or a GRPCRoute
// that shares a hostname, on a listener, with an older route of the other kind. The
// Gateway API has no reason of its own for it.
const ReasonHostnameConflict = "HostnameConflict"

// ListenerHostnames are the hostnames of a Gateway's listeners and of those of its
// attached ListenerSets (by listeners.SetRef.Key), empty for a listener that takes every
// name: what RefuseKindConflicts reads of the listeners.
func ListenerHostnames(in Input) map[gatewayv1.SectionName]string {
	out := map[gatewayv1.SectionName]string{}
	for i := range in.Gateway.Spec.Listeners {
		l := &in.Gateway.Spec.Listeners[i]
		out[l.Name] = hostnameOf(l)
	}
	for _, v := range in.ListenerSets {
		if !v.Accepted {
			continue
		}
		for i := range v.Entries {
			out[v.Ref.Key(v.Entries[i].Name)] = hostnameOf(&v.Entries[i])
		}
	}
	return out
}

func hostnameOf(l *gatewayv1.Listener) string {
	if l.Hostname == nil {
		return ""
	}
	return string(*l.Hostname)
}

// RefuseKindConflicts refuses, as the GRPCRoute specification says, each HTTPRoute or
// GRPCRoute that shares an effective hostname, on a listener both attach to, with an
// older route of the other kind (admission order: oldest, then "{namespace}/{name}").
// Only routes nothing refused yet take part. A route is judged against every older route
// of the other kind taking part, whether that one is served or not: its verdict then
// depends on the other kind's routes alone, so that a route's own status can compute it
// as the Gateway's table does. hostnames are the listeners' (ListenerHostnames).
func RefuseKindConflicts(in []RouteInput, hostnames map[gatewayv1.SectionName]string) {
	// Most Gateways serve one of the two kinds: they pay nothing more, not even the
	// contenders' list.
	if !slices.ContainsFunc(in, isGRPCContender) {
		return
	}
	var httpRoutes, grpcRoutes []contender
	for i := range in {
		r := &in[i]
		if r.Refusal != nil {
			continue
		}
		switch r.Route.(type) {
		case *gatewayv1.HTTPRoute:
			httpRoutes = append(httpRoutes, contender{route: r})
		case *gatewayv1.GRPCRoute:
			grpcRoutes = append(grpcRoutes, contender{route: r})
		}
	}
	if len(httpRoutes) == 0 {
		return
	}
	prepare(httpRoutes, hostnames)
	prepare(grpcRoutes, hostnames)
	// The contenders were taken above: a refusal set here takes no one out of the judging.
	for _, pair := range [][2][]contender{{httpRoutes, grpcRoutes}, {grpcRoutes, httpRoutes}} {
		for i := range pair[0] {
			if refusal := pair[0][i].loses(pair[1]); refusal != nil {
				pair[0][i].route.Refusal = refusal
			}
		}
	}
}

// isGRPCContender tells whether r is a GRPCRoute nothing refused yet.
func isGRPCContender(r RouteInput) bool {
	_, grpc := r.Route.(*gatewayv1.GRPCRoute)
	return grpc && r.Refusal == nil
}

// contender is an HTTPRoute or GRPCRoute in the judging: where it stands in admission
// order and its effective hostnames on each listener it attaches to.
type contender struct {
	route *RouteInput
	key   admissionKey
	hosts map[gatewayv1.SectionName][]string
}

// prepare computes the contenders' keys and hosts and sorts them, oldest first.
func prepare(contenders []contender, hostnames map[gatewayv1.SectionName]string) {
	for i := range contenders {
		c := &contenders[i]
		c.key = admissionKeyOf(c.route.Route)
		c.hosts = make(map[gatewayv1.SectionName][]string, len(c.route.Listeners))
		for _, l := range c.route.Listeners {
			c.hosts[l] = effectiveHostnames(hostnames[l], routes.Hostnames(c.route.Route))
		}
	}
	slices.SortFunc(contenders, func(a, b contender) int { return admissionOrder(a.key, b.key) })
}

// loses is c's refusal for the oldest of others (the other kind, oldest first) that is
// older than c and shares a hostname with it on a listener; nil when none does.
func (c *contender) loses(others []contender) *Refusal {
	for i := range others {
		older := &others[i]
		if admissionOrder(older.key, c.key) >= 0 {
			return nil
		}
		for _, l := range c.route.Listeners {
			if hostname, ok := sharedHostname(c.hosts[l], older.hosts[l]); ok {
				return &Refusal{Reason: ReasonHostnameConflict, Message: fmt.Sprintf(
					"%s serves hostname %s on listener %s too: of an HTTPRoute and a GRPCRoute sharing a hostname on a listener, only the older is accepted",
					older.nameFor(c.key.namespace), hostname, l)}
			}
		}
	}
	return nil
}

// HostnamesMayMeet tells whether routes of hostnames a and b may share one on some
// listener: a route without hostnames takes the listener's, which may be any name.
func HostnamesMayMeet(a, b []gatewayv1.Hostname) bool {
	_, ok := sharedHostname(effectiveHostnames("", a), effectiveHostnames("", b))
	return ok
}

// nameFor is how the refusal of a route of namespace names c: by name in the route's own
// namespace; in another, by its kind alone, as the bounds' messages name no route of
// another tenant.
func (c *contender) nameFor(namespace string) string {
	if c.key.namespace == namespace {
		return c.key.kind + " " + c.key.namespace + "/" + c.key.name + ", older,"
	}
	return "an older " + c.key.kind + " of another namespace"
}

// sharedHostname is a hostname both a and b, effective hostnames, serve: the more
// specific of the first pair that intersects.
func sharedHostname(a, b []string) (string, bool) {
	for _, x := range a {
		for _, y := range b {
			if name, ok := attach.Intersection(x, y); ok {
				return name, true
			}
		}
	}
	return "", false
}
