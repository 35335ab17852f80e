package routing

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Table is what a Gateway serves: each listener with the routes of every standard kind
// attached to it (HTTP and gRPC matches and TLS routes by effective hostname, in the
// order the Gateway API says they are tried; TCP and UDP routes by listener), and every
// route's verdict. Templates get it as .RouteTable (its JSON form: the field
// names below in lower camel case), and `gatewright explain request` answers from it.
type Table struct {
	Listeners []Listener `json:"listeners"`
	// Routes are the routes the table was built from, by kind, then namespace/name, each
	// with its verdict: a route that is not accepted is in no listener.
	Routes []RouteVerdict `json:"routes"`
}

// Listener is one listener of the Gateway and what it serves.
type Listener struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol"`
	// Hostname is the listener's hostname, empty when it takes every name.
	Hostname string `json:"hostname"`
	// TLSMode is Terminate or Passthrough for a listener with tls, else empty.
	TLSMode string `json:"tlsMode"`
	// Certificates are the certificateRefs that resolve, as namespace and name.
	Certificates []ObjectRef `json:"certificates"`
	// Valid is whether the listener can be programmed (accepted, every reference
	// resolved); a listener that is not valid serves nothing: it has no hosts and no
	// routes.
	Valid bool `json:"valid"`
	// Hosts are the effective hostnames of the routes on an HTTP, HTTPS or TLS
	// listener: exact names first, then wildcards from the most labels to the fewest,
	// "*" last.
	Hosts []Host `json:"hosts"`
	// Routes are the TCPRoutes or UDPRoutes on a TCP or UDP listener, oldest first,
	// then by namespace/name: they match by port alone, so they have no hosts.
	Routes []L4Route `json:"routes,omitempty"`
	// ListenerSet names the ListenerSet the listener came from; unset for one of the
	// Gateway's own. Names are unique only within a Gateway or a ListenerSet.
	ListenerSet *ObjectRef `json:"listenerSet,omitempty"`
}

// Host is one effective hostname of a listener (listener hostname ∩ route hostname, or
// "*" when neither says) and what serves it, in precedence order: the first that
// matches a request or connection takes it.
type Host struct {
	Hostname string   `json:"hostname"`
	Matches  []*Match `json:"matches"`
	// GRPCMatches are the GRPCRoutes' matches on an HTTP or HTTPS listener, apart from
	// Matches: the API orders them by rules of their own and forbids merging the two.
	GRPCMatches []GRPCMatch `json:"grpcMatches,omitempty"`
	// TLSRoutes are the TLSRoutes serving the hostname (SNI) on a TLS listener, oldest
	// first, then by namespace/name: the first takes the connection.
	TLSRoutes []L4Route `json:"tlsRoutes,omitempty"`
}

// ObjectRef names an object.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Match is one match of one rule of an HTTPRoute, with the rule's filters, backends and
// timeouts: what the Gateway does with a request the match takes.
type Match struct {
	Route ObjectRef `json:"route"`
	// Rule and Match are indexes into the route's spec.rules and the rule's matches; a
	// rule without matches has one, Match 0, that takes every request.
	Rule     int    `json:"rule"`
	RuleName string `json:"ruleName"`
	Match    int    `json:"match"`
	// Name is namespace/name/rule/R/match/M, unique in the table: what a proxy's route
	// is named after, so that its logs and metrics name the route.
	Name string `json:"name"`
	// Path is the path match, PathPrefix "/" when the route gives none.
	Path        PathMatch    `json:"path"`
	Method      string       `json:"method"`
	Headers     []ValueMatch `json:"headers"`
	QueryParams []ValueMatch `json:"queryParams"`
	// Filters are the rule's filters in order, with defaults filled in.
	Filters []gatewayv1.HTTPRouteFilter `json:"filters"`
	// Backends are the rule's backendRefs in order.
	Backends []HTTPBackend                `json:"backends"`
	Timeouts *gatewayv1.HTTPRouteTimeouts `json:"timeouts,omitempty"`
}

// PathMatch is a path match with its type always set: Exact, PathPrefix or
// RegularExpression.
type PathMatch struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// ValueMatch is a header or query parameter match with its type always set: Exact or
// RegularExpression. Header names are lower case (they are case-insensitive); query
// parameter names are as written (they are not).
type ValueMatch struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Backend is one backendRef of a rule, of a route of any kind.
type Backend struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Port is 0 when the backendRef names none.
	Port int32 `json:"port"`
	// Weight is the backendRef's weight, 1 when it says none; 0 takes no traffic.
	Weight int32 `json:"weight"`
	// Resolved is whether the backend is a Service the route may refer to (a
	// ReferenceGrant lets it, across namespaces) that exists; Reason is the route's
	// ResolvedRefs reason for it (ResolvedRefs when it resolves).
	Resolved bool   `json:"resolved"`
	Reason   string `json:"reason"`
}

// HTTPBackend is one backendRef of an HTTPRoute rule.
type HTTPBackend struct {
	Backend `json:",inline"`
	// Filters are the backendRef's own filters, applied to what it receives.
	Filters []gatewayv1.HTTPRouteFilter `json:"filters"`
}

// RouteVerdict is whether a route is in the table and where.
type RouteVerdict struct {
	ObjectRef `json:",inline"`
	// Accepted is false when the route is refused as a whole (Reason and Message say
	// why) and so has no match in the table.
	Accepted bool   `json:"accepted"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
	// Listeners are the listeners the route attaches to.
	Listeners []string `json:"listeners"`
}
