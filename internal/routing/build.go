package routing

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
)

// Input is what a Gateway's table is built from.
type Input struct {
	Gateway *gatewayv1.Gateway
	// Listeners are the listener verdicts of the Gateway (internal/listeners).
	Listeners []listeners.Status
	// Routes are the routes of every standard kind attached to the Gateway.
	Routes []RouteInput
	// ListenerSets are the verdicts of the ListenerSets naming the Gateway as their
	// parent (listeners.EvaluateSets): the listeners of those attached follow the
	// Gateway's own in the table, each naming its ListenerSet, and take their hostnames
	// from the Gateway's as a more specific listener does. A route's Listeners name them
	// by SetRef.Key.
	ListenerSets []listeners.SetVerdict
	// Memo keeps the routes' matches from the Gateway's last table; nil computes them.
	Memo *MatchMemo
}

// RouteInput is one route attached to the Gateway, of any standard kind.
type RouteInput struct {
	Route routes.Route
	// Listeners are the listeners the route attaches to (internal/attach), those of a
	// ListenerSet by listeners.SetRef.Key.
	Listeners []gatewayv1.SectionName
	// BackendRefs are the route's backendRefs as they resolved, in spec order
	// (attach.ResolveBackendRefs); a backendRef missing from them does not resolve.
	BackendRefs []attach.BackendRef
	// Refusal, when set, refuses the route as a whole: it is left out of every
	// listener and its verdict says why.
	Refusal *Refusal
	// Facts, when set, are FactsOf(Route), which the caller keeps: the table reads them
	// instead of the route.
	Facts *RouteFacts
}

// Refusal is why a route is refused as a whole, as its Accepted condition says it.
type Refusal struct {
	Reason  string
	Message string
}

// Build computes the table. It reads nothing but in, so the controller and the offline
// commands compute the same table from the same objects; in.Memo spares work, and
// changes nothing of the table.
func Build(in Input) *Table {
	defer in.Memo.begin()()
	t := &Table{Listeners: []Listener{}, Routes: make([]RouteVerdict, 0, len(in.Routes))}
	byListener := map[gatewayv1.SectionName][]*RouteInput{}
	// The verdicts' listeners share one list, each clipped to its own.
	names := 0
	for i := range in.Routes {
		names += len(in.Routes[i].Listeners)
	}
	listenerNames := make([]string, 0, names)
	for i := range in.Routes {
		r := &in.Routes[i]
		start := len(listenerNames)
		for _, name := range r.Listeners {
			listenerNames = append(listenerNames, string(name))
		}
		v := RouteVerdict{ObjectRef: r.facts().Ref, Accepted: r.Refusal == nil, Listeners: listenerNames[start:len(listenerNames):len(listenerNames)]}
		if r.Refusal != nil {
			v.Reason, v.Message = r.Refusal.Reason, r.Refusal.Message
		} else {
			v.Reason = string(gatewayv1.RouteReasonAccepted)
			for _, name := range r.Listeners {
				byListener[name] = append(byListener[name], r)
			}
		}
		t.Routes = append(t.Routes, v)
	}
	slices.SortFunc(t.Routes, func(a, b RouteVerdict) int {
		if a.Kind != b.Kind {
			return cmp.Compare(slices.Index(routes.Kinds, a.Kind), slices.Index(routes.Kinds, b.Kind))
		}
		return CompareNamespacedNames(a.Namespace, a.Name, b.Namespace, b.Name)
	})
	for i := range in.Gateway.Spec.Listeners {
		l := &in.Gateway.Spec.Listeners[i]
		t.Listeners = append(t.Listeners, listener(string(l.Name), l, verdictOf(in.Listeners, l.Name), byListener[l.Name], in.Memo))
	}
	for _, v := range in.ListenerSets {
		if !v.Accepted {
			continue
		}
		for i := range v.Entries {
			key := v.Ref.Key(v.Entries[i].Name)
			l := listener(string(key), &v.Entries[i], &v.Listeners[i], byListener[key], in.Memo)
			l.ListenerSet = &ObjectRef{Kind: "ListenerSet", Namespace: v.Ref.Namespace, Name: v.Ref.Name}
			t.Listeners = append(t.Listeners, l)
		}
	}
	for i := range t.Listeners {
		t.Listeners[i].Hosts = slices.DeleteFunc(t.Listeners[i].Hosts, func(h Host) bool {
			return takenElsewhere(t.Listeners, &t.Listeners[i], h.Hostname)
		})
	}
	return t
}

// takenElsewhere tells whether a request for hostname on l's port goes to another
// listener: one whose hostname is more specific than l's and covers hostname. Such a
// host of l serves nothing, and a proxy that merges the hosts of a port must not let it.
func takenElsewhere(all []Listener, l *Listener, hostname string) bool {
	for i := range all {
		other := &all[i]
		if other == l || !other.Valid || other.Port != l.Port || other.Hostname == "" || other.Hostname == l.Hostname {
			continue
		}
		if narrower, ok := attach.Intersection(l.Hostname, other.Hostname); !ok || narrower != other.Hostname {
			continue // other's hostname is not more specific than l's
		}
		if covered, ok := attach.Intersection(other.Hostname, hostname); ok && covered == hostname {
			return true
		}
	}
	return false
}

func verdictOf(statuses []listeners.Status, name gatewayv1.SectionName) *listeners.Status {
	for i := range statuses {
		if statuses[i].Name == name {
			return &statuses[i]
		}
	}
	return nil
}

// listener is the table's listener l with the routes attached to it; key names it
// among the Gateway's listeners and those of its ListenerSets.
func listener(key string, l *gatewayv1.Listener, verdict *listeners.Status, attached []*RouteInput, memo *MatchMemo) Listener {
	out := Listener{Name: string(l.Name), Port: int32(l.Port), Protocol: string(l.Protocol),
		Certificates: []ObjectRef{}, Hosts: []Host{}, Valid: verdict != nil && verdict.IsValid()}
	if l.Hostname != nil {
		out.Hostname = string(*l.Hostname)
	}
	if l.TLS != nil {
		out.TLSMode = string(gatewayv1.TLSModeTerminate)
		if l.TLS.Mode != nil {
			out.TLSMode = string(*l.TLS.Mode)
		}
	}
	if verdict != nil {
		for _, c := range verdict.CertificateRefs {
			if c.Resolved() {
				out.Certificates = append(out.Certificates, ObjectRef{Kind: c.Kind, Namespace: c.Namespace, Name: c.Name})
			}
		}
	}
	if !out.Valid {
		return out
	}
	switch l.Protocol {
	case gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType:
		out.Hosts = httpHosts(key, out.Hostname, attached, memo)
	case gatewayv1.TLSProtocolType:
		out.Hosts = tlsHosts(out.Hostname, attached)
	case gatewayv1.TCPProtocolType, gatewayv1.UDPProtocolType:
		out.Routes = l4Routes(l.Protocol, attached)
	}
	return out
}

// httpHosts are the hosts of an HTTP or HTTPS listener of hostname, named key: the
// HTTPRoutes' and GRPCRoutes' matches by effective hostname, each kind in its
// precedence order.
func httpHosts(key, hostname string, attached []*RouteInput, memo *MatchMemo) []Host {
	// The listener's own hostname is always a host, matched or not: a request for it
	// that no route takes is answered here (404), not by another listener's host.
	own := cmp.Or(hostname, "*")
	// Each host's matches are gathered route by route, then joined once: the host of a
	// shared Gateway grows to thousands of matches of hundreds of bytes each.
	type parts struct {
		http []hostRoute
		grpc [][]GRPCMatch
	}
	hosts := map[string]*parts{own: {}}
	host := func(name string) *parts {
		if hosts[name] == nil {
			hosts[name] = &parts{}
		}
		return hosts[name]
	}
	for _, r := range attached {
		switch route := r.Route.(type) {
		case *gatewayv1.HTTPRoute:
			// What the memo keeps of the route: the route itself is not read again.
			of := memo.httpRouteOf(r, route)
			for _, name := range effectiveHostnames(hostname, of.hostnames) {
				h := host(name)
				h.http = append(h.http, hostRoute{uid: of.uid, created: of.created, matches: of.matches})
			}
		case *gatewayv1.GRPCRoute:
			matches := grpcMatches(r, route)
			for _, name := range effectiveHostnames(hostname, route.Spec.Hostnames) {
				h := host(name)
				h.grpc = append(h.grpc, matches)
			}
		}
	}
	out := make([]Host, 0, len(hosts))
	var grpcAges map[ObjectRef]metav1.Time // read once, if a host has GRPCRoutes to order
	for name, p := range hosts {
		h := Host{Hostname: name, Matches: memo.sortedHTTP(hostKey{listener: key, hostname: name}, p.http), GRPCMatches: slices.Concat(p.grpc...)}
		if len(h.GRPCMatches) > 1 {
			if grpcAges == nil {
				grpcAges = routeAges(attached)
			}
			sortMatches(h.GRPCMatches, func(m *GRPCMatch) ObjectRef { return m.Route }, grpcAges, grpcPrecedence)
		}
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b Host) int { return compareHostnames(a.Hostname, b.Hostname) })
	return out
}

// effectiveHostnames are the names under which a route serves on a listener: the
// intersections of its hostnames with the listener's, the listener's when the route has
// none, and "*" when neither has any.
func effectiveHostnames(listener string, route []gatewayv1.Hostname) []string {
	if len(route) == 0 {
		if listener == "" {
			return []string{"*"}
		}
		return []string{listener}
	}
	var out []string
	for _, h := range route {
		if name, ok := attach.Intersection(listener, string(h)); ok && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func routeRef(r routes.Route) ObjectRef {
	return ObjectRef{Kind: routes.KindOf(r), Namespace: r.GetNamespace(), Name: r.GetName()}
}

// matchName is a match's name in the table: namespace/name/rule/R/match/M for an
// HTTPRoute's; another kind's has its kind in lower case first, so that routes of two
// kinds sharing a name do not collide.
func matchName(ref ObjectRef, rule, match int) string {
	name := ref.Namespace + "/" + ref.Name + "/rule/" + strconv.Itoa(rule) + "/match/" + strconv.Itoa(match)
	if ref.Kind != routes.KindHTTPRoute {
		name = strings.ToLower(ref.Kind) + "/" + name
	}
	return name
}

// routeMatches are the matches of every rule of route, r's HTTPRoute, in rule and
// match order.
func routeMatches(r *RouteInput, route *gatewayv1.HTTPRoute) []Match {
	ref := routeRef(route)
	backends := backendsByRule(r)
	var out []Match
	for i := range route.Spec.Rules {
		rule := &route.Spec.Rules[i]
		filters := normalizeFilters(rule.Filters)
		httpBackends := make([]HTTPBackend, len(rule.BackendRefs))
		for k := range rule.BackendRefs {
			httpBackends[k] = HTTPBackend{Backend: backends[i][k], Filters: normalizeFilters(rule.BackendRefs[k].Filters)}
		}
		matches := rule.Matches
		if len(matches) == 0 {
			matches = []gatewayv1.HTTPRouteMatch{{}}
		}
		for j := range matches {
			m := Match{Route: ref, Rule: i, Match: j, Name: matchName(ref, i, j),
				Filters: filters, Backends: httpBackends, Timeouts: rule.Timeouts}
			if rule.Name != nil {
				m.RuleName = string(*rule.Name)
			}
			normalizeMatch(&m, &matches[j])
			out = append(out, m)
		}
	}
	return out
}

// backendsByRule are the backends of each rule of r, of any kind, their resolution
// taken from r.BackendRefs in order.
func backendsByRule(r *RouteInput) [][]Backend {
	rules := routes.BackendRefs(r.Route)
	out := make([][]Backend, len(rules))
	next := 0
	for i, refs := range rules {
		out[i] = []Backend{}
		for _, ref := range refs {
			key, _ := attach.BackendService(r.Route, ref.BackendObjectReference)
			b := Backend{Group: "", Kind: "Service", Namespace: key.Namespace, Name: key.Name, Weight: 1,
				Reason: string(gatewayv1.RouteReasonBackendNotFound)}
			if ref.Group != nil {
				b.Group = string(*ref.Group)
			}
			if ref.Kind != nil {
				b.Kind = string(*ref.Kind)
			}
			if ref.Port != nil {
				b.Port = int32(*ref.Port)
			}
			if ref.Weight != nil {
				b.Weight = *ref.Weight
			}
			if next < len(r.BackendRefs) && r.BackendRefs[next].Rule == i {
				b.Resolved, b.Reason = r.BackendRefs[next].Resolved(), string(r.BackendRefs[next].Reason)
				next++
			}
			out[i] = append(out[i], b)
		}
	}
	return out
}
