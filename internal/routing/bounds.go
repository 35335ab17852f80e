package routing

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routes"
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

// Cutoff is where a Gateway's routes of every kind, oldest first, went past a bound: the
// first route refused, and why. Every route at or after it in that order is refused too,
// so the cutoff alone, recorded for the Gateway, tells each route its verdict.
type Cutoff struct {
	CreationTimestamp metav1.Time
	// Kind is the first refused route's kind; empty is an HTTPRoute, as records written
	// before the other kinds were bounded say.
	Kind            string
	Namespace, Name string
	// Message says which bound, counting what the Gateway serves rather than naming
	// routes of namespaces the reader may not see; it is true of every route refused.
	Message string
}

// Refuses tells whether route, of any kind, is at or after the cutoff in admission
// order.
func (c *Cutoff) Refuses(route routes.Route) bool {
	return c != nil && admissionOrder(admissionKeyOf(route), c.key()) >= 0
}

// Admit applies limits (their unset bounds the defaults) to a Gateway's routes of every
// kind together, in one order: it refuses the routes past them, and returns the cutoff,
// nil when every route fits.
func Admit(in []RouteInput, limits Limits) *Cutoff {
	limits = limits.orDefault()
	if fitAll(in, limits) {
		return nil // no route is past a bound, in any order: none to sort
	}
	order := make([]candidate, 0, len(in))
	for i := range in {
		r := &in[i]
		f := r.facts()
		order = append(order, candidate{key: admissionKeyOf(r.Route), route: r.Route, size: f.SpecBytes, weight: tableEntries(r, f)})
	}
	slices.SortFunc(order, func(a, b candidate) int { return admissionOrder(a.key, b.key) })
	var cutoff *Cutoff
	total, entries := 0, 0
	for i, r := range order {
		size := r.size
		switch {
		case i >= limits.Routes:
			cutoff = r.cutoff(fmt.Sprintf("the Gateway serves its %d oldest routes, its bound; this route is newer", limits.Routes))
		case total+size > limits.Bytes:
			cutoff = r.cutoff(fmt.Sprintf("the Gateway serves its %d oldest routes, %d bytes of specs together: the next, of %d bytes, would pass its bound of %d bytes, and this route is that one or newer", i, total, size, limits.Bytes))
		case entries+r.weight > limits.Entries:
			cutoff = r.cutoff(fmt.Sprintf("the Gateway serves its %d oldest routes, %d entries of its route table together: the next, of %d (matches × hostnames × listeners), would pass its bound of %d entries, and this route is that one or newer", i, entries, r.weight, limits.Entries))
		}
		if cutoff != nil {
			break
		}
		total, entries = total+size, entries+r.weight
	}
	cutoff.Refuse(in)
	return cutoff
}

// fitAll tells whether the routes of in, all of them, are within limits.
func fitAll(in []RouteInput, limits Limits) bool {
	if len(in) > limits.Routes {
		return false
	}
	total, entries := 0, 0
	for i := range in {
		f := in[i].facts()
		total, entries = total+f.SpecBytes, entries+tableEntries(&in[i], f)
	}
	return total <= limits.Bytes && entries <= limits.Entries
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

// candidate is a route in admission: where it stands and what it weighs in the table.
type candidate struct {
	key    admissionKey
	route  routes.Route
	size   int
	weight int
}

func (c candidate) cutoff(message string) *Cutoff {
	return &Cutoff{CreationTimestamp: c.key.created, Kind: c.key.kind, Namespace: c.key.namespace, Name: c.key.name, Message: message}
}

// admissionKey is where a route stands in admission order: oldest first, then by
// namespace/name, then by kind (an HTTPRoute and a TCPRoute may share a name).
type admissionKey struct {
	created               metav1.Time
	namespace, name, kind string
}

func admissionKeyOf(route routes.Route) admissionKey {
	return admissionKey{created: route.GetCreationTimestamp(), namespace: route.GetNamespace(), name: route.GetName(), kind: routes.KindOf(route)}
}

func (c *Cutoff) key() admissionKey {
	kind := c.Kind
	if kind == "" {
		kind = routes.KindHTTPRoute
	}
	return admissionKey{created: c.CreationTimestamp, namespace: c.Namespace, name: c.Name, kind: kind}
}

func admissionOrder(a, b admissionKey) int {
	if !a.created.Equal(&b.created) {
		if a.created.Before(&b.created) {
			return -1
		}
		return 1
	}
	if by := CompareNamespacedNames(a.namespace, a.name, b.namespace, b.name); by != 0 {
		return by
	}
	return strings.Compare(a.kind, b.kind)
}

// CompareNamespacedNames orders namespace/name strings as Gateway API's ties do, by
// "{namespace}/{name}", without building them: a route table's sort compares them
// some 60,000 times for 5,000 routes.
func CompareNamespacedNames(namespaceA, nameA, namespaceB, nameB string) int {
	if namespaceA == namespaceB {
		return strings.Compare(nameA, nameB)
	}
	n := min(len(namespaceA), len(namespaceB))
	for i := range n {
		if namespaceA[i] != namespaceB[i] {
			return cmp.Compare(namespaceA[i], namespaceB[i])
		}
	}
	// One namespace is a prefix of the other: the shorter continues with '/'.
	var by int
	if len(namespaceA) == n {
		by = cmp.Compare('/', namespaceB[n])
	} else {
		by = cmp.Compare(namespaceA[n], '/')
	}
	if by == 0 { // a '/' in a namespace, which Kubernetes refuses
		return strings.Compare(namespaceA+"/"+nameA, namespaceB+"/"+nameB)
	}
	return by
}

// tableEntries is at most how many entries r's matches take in the table: an
// HTTPRoute's matches (a rule without matches has one) once for every listener it
// attaches to and every hostname it names; a route of another kind weighs as it did
// before the table held it (otherEntries), so that no route served then is refused now.
// f is r's route's facts.
func tableEntries(r *RouteInput, f *RouteFacts) int {
	if _, ok := r.Route.(*gatewayv1.HTTPRoute); !ok {
		return f.Entries
	}
	return f.Entries * max(1, len(r.Listeners))
}

// otherEntries is what a route of a kind other than HTTPRoute weighs against the
// entries bound: its matches (a rule without matches, every TLS, TCP and UDP rule, one)
// once for every hostname it names.
func otherEntries(route routes.Route) int {
	matches := 0
	if grpc, ok := route.(*gatewayv1.GRPCRoute); ok {
		for _, rule := range grpc.Spec.Rules {
			matches += max(1, len(rule.Matches))
		}
	} else {
		matches = len(routes.BackendRefs(route))
	}
	return max(1, matches) * max(1, len(routes.Hostnames(route)))
}
