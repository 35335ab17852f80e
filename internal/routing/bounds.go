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
}

// DefaultLimits are far above ordinary scale (a Gateway with 5,000 routes, a route of
// 128 matches): 32 MiB is 5,000 routes of 6.5 KiB each, where an ordinary route takes
// half a kilobyte and one of 128 matches some 10 KiB. The controller's operator may
// set others (`gatewright controller --max-routes-per-gateway`).
var DefaultLimits = Limits{Routes: 10000, Bytes: 32 << 20}

// orDefault is l with each unset bound the default's.
func (l Limits) orDefault() Limits {
	if l.Routes <= 0 {
		l.Routes = DefaultLimits.Routes
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultLimits.Bytes
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
	total := 0
	for i, r := range order {
		size := specSize(r.Route)
		switch {
		case i >= limits.Routes:
			cutoff = cutoffAt(r.Route, fmt.Sprintf("the Gateway serves its %d oldest routes, its bound; this route is newer", limits.Routes))
		case total+size > limits.Bytes:
			cutoff = cutoffAt(r.Route, fmt.Sprintf("the Gateway serves its %d oldest routes, %d bytes of specs together, and this route's %d bytes would pass its bound of %d bytes", i, total, size, limits.Bytes))
		}
		if cutoff != nil {
			break
		}
		total += size
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

// specSize is the size of a route's spec as JSON; a spec that does not marshal (it
// always does) counts as past every bound.
func specSize(route *gatewayv1.HTTPRoute) int {
	data, err := json.Marshal(&route.Spec)
	if err != nil {
		return math.MaxInt / 2
	}
	return len(data)
}
