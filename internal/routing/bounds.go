package routing

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Limits are Gateway-wide bounds on the routes one Gateway takes. Routes come from any
// namespace a listener admits, so without them one tenant's routes could make a shared
// Gateway's render exceed what its budget allows and stop it for everyone. Past a
// bound, the newest routes are refused, each on its own status, and the rest are
// served: a route never loses its place to one created after it.
type Limits struct {
	// Routes bounds the routes attached to one Gateway.
	Routes int
	// Bytes bounds the routes' specs together, as JSON.
	Bytes int
	// Entries bounds the matches of the table together: a route's matches count once
	// for every listener it attaches to and every hostname it names, as the table holds
	// them once per host (tableEntries). Routes and bytes alone leave a product
	// unbounded: a route of 16 hostnames and 128 matches on 64 listeners is 131,072
	// entries of a few hundred bytes, and the templates' copy of each is larger.
	Entries int
}

// DefaultLimits are far above ordinary scale (a Gateway with 5,000 routes, a route of
// 128 matches): 32 MiB is 5,000 routes of 6.5 KiB each, where an ordinary route takes
// half a kilobyte and one of 128 matches some 10 KiB; 250,000 entries are 5,000 routes
// of 10 matches on 5 listeners, where an ordinary route takes one or two. The
// controller's operator may set others (`gatewright controller
// --max-routes-per-gateway`, ...).
var DefaultLimits = Limits{Routes: 10000, Bytes: 32 << 20, Entries: 250000}

// orDefault is l with each unset bound the default's.
func (l Limits) orDefault() Limits {
	if l.Routes <= 0 {
		l.Routes = DefaultLimits.Routes
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultLimits.Bytes
	}
	if l.Entries <= 0 {
		l.Entries = DefaultLimits.Entries
	}
	return l
}

// ReasonRouteLimit is the reason of Accepted=False on a route the Gateway-wide bounds
// leave out.
const ReasonRouteLimit = "RouteLimitExceeded"

// Cutoff is where a Gateway's routes, oldest first, went past a bound: the first route
// refused, and why. Every route at or after it in that order is refused too, so the
// cutoff alone, recorded for the Gateway, tells each route its verdict.
type Cutoff struct {
	CreationTimestamp metav1.Time
	Namespace, Name   string
	// Message says which bound, counting what the Gateway serves rather than naming
	// routes of namespaces the reader may not see.
	Message string
}

// Refuses tells whether route is at or after the cutoff in admission order.
func (c *Cutoff) Refuses(route *gatewayv1.HTTPRoute) bool {
	return c != nil && admissionOrder(route.CreationTimestamp, route.Namespace, route.Name, c.CreationTimestamp, c.Namespace, c.Name) >= 0
}

// Admit applies limits (their unset bounds the defaults) to routes: it refuses those
// past them, and returns the cutoff, nil when every route fits.
func Admit(routes []RouteInput, limits Limits) *Cutoff {
	limits = limits.orDefault()
	order := make([]*RouteInput, len(routes))
	for i := range routes {
		order[i] = &routes[i]
	}
	slices.SortFunc(order, func(a, b *RouteInput) int {
		return admissionOrder(a.Route.CreationTimestamp, a.Route.Namespace, a.Route.Name, b.Route.CreationTimestamp, b.Route.Namespace, b.Route.Name)
	})
	var cutoff *Cutoff
	total, entries := 0, 0
	for i, r := range order {
		size, weight := specSize(r.Route), tableEntries(r)
		switch {
		case i >= limits.Routes:
			cutoff = cutoffAt(r.Route, fmt.Sprintf("the Gateway serves its %d oldest routes, its bound; this route is newer", limits.Routes))
		case total+size > limits.Bytes:
			cutoff = cutoffAt(r.Route, fmt.Sprintf("the Gateway serves its %d oldest routes, %d bytes of specs together, and this route's %d bytes would pass its bound of %d bytes", i, total, size, limits.Bytes))
		case entries+weight > limits.Entries:
			cutoff = cutoffAt(r.Route, fmt.Sprintf("the Gateway serves its %d oldest routes, %d entries of its route table together, and this route's %d (matches × hostnames × listeners) would pass its bound of %d entries", i, entries, weight, limits.Entries))
		}
		if cutoff != nil {
			break
		}
		total, entries = total+size, entries+weight
	}
	cutoff.Refuse(routes)
	return cutoff
}

// Refuse refuses the routes at or after the cutoff that nothing refused yet; a nil
// cutoff refuses none.
func (c *Cutoff) Refuse(routes []RouteInput) {
	for i := range routes {
		if r := &routes[i]; r.Refusal == nil && c.Refuses(r.Route) {
			r.Refusal = &Refusal{Reason: ReasonRouteLimit, Message: c.Message}
		}
	}
}

func cutoffAt(route *gatewayv1.HTTPRoute, message string) *Cutoff {
	return &Cutoff{CreationTimestamp: route.CreationTimestamp, Namespace: route.Namespace, Name: route.Name, Message: message}
}

// admissionOrder orders routes oldest first, then by namespace/name.
func admissionOrder(ta metav1.Time, nsA, nameA string, tb metav1.Time, nsB, nameB string) int {
	if !ta.Equal(&tb) {
		if ta.Before(&tb) {
			return -1
		}
		return 1
	}
	return strings.Compare(nsA+"/"+nameA, nsB+"/"+nameB)
}

// tableEntries is at most how many entries r's matches take in the table: each match
// (a rule without matches has one) once for every listener r attaches to and every
// hostname it names.
func tableEntries(r *RouteInput) int {
	matches := 0
	for _, rule := range r.Route.Spec.Rules {
		matches += max(1, len(rule.Matches))
	}
	return matches * max(1, len(r.Route.Spec.Hostnames)) * max(1, len(r.Listeners))
}

// specSize is the size of a route's spec as JSON; a spec that does not marshal (it
// always does) counts as past every bound.
func specSize(route *gatewayv1.HTTPRoute) int {
	data, err := json.Marshal(&route.Spec)
	if err != nil {
		return math.MaxInt / 2
	}
	return len(data)
}
