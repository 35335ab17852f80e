package routing

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routes"
)

func TestTheNewestRoutesPastTheCountAreRefused(t *testing.T) {
	routes := make([]RouteInput, 0, DefaultLimits.Routes+2)
	for i := range DefaultLimits.Routes + 2 {
		// Ages fall with i, so the last two routes are the newest.
		r := route(t, fmt.Sprintf("team-%d", i%10), fmt.Sprintf("r%05d", i), DefaultLimits.Routes+2-i, `{rules: [{}]}`)
		routes = append(routes, RouteInput{Route: r, Listeners: []gatewayv1.SectionName{"http"}})
	}
	cutoff := Admit(routes, Limits{})
	if cutoff == nil || cutoff.Name != fmt.Sprintf("r%05d", DefaultLimits.Routes) {
		t.Fatalf("cutoff %+v, want at route r%05d", cutoff, DefaultLimits.Routes)
	}
	for i, r := range routes {
		refused := r.Refusal != nil
		if want := i >= DefaultLimits.Routes; refused != want || cutoff.Refuses(r.Route) != want {
			t.Fatalf("route %d refused %v (cutoff says %v), want %v", i, refused, cutoff.Refuses(r.Route), want)
		}
	}
	if !strings.Contains(cutoff.Message, "its 10000 oldest routes") || routes[DefaultLimits.Routes].Refusal.Reason != ReasonRouteLimit {
		t.Errorf("refusal %+v, want %s counting the routes served", routes[DefaultLimits.Routes].Refusal, ReasonRouteLimit)
	}
	if cutoff := Admit(routes[:5], Limits{Routes: 3}); cutoff == nil || cutoff.Name != "r00003" {
		t.Errorf("an operator's bound of 3: cutoff %+v, want at route r00003", cutoff)
	}
}

func TestTheNewestRoutesPastTheSizeAreRefusedAndTheLargestOrdinaryGatewayFits(t *testing.T) {
	gw := gateway(t)
	var big []RouteInput
	value := strings.Repeat("v", 4096)
	headers := fmt.Sprintf(`[{name: a, value: %s}, {name: b, value: %s}, {name: c, value: %s}, {name: d, value: %s}]`, value, value, value, value)
	var matches []string
	for range 64 {
		matches = append(matches, `{headers: `+headers+`}`)
	}
	spec := `{rules: [{matches: [` + strings.Join(matches, ",") + `]}]}` // about 1 MiB
	for i := range 40 {
		big = append(big, RouteInput{Route: route(t, "big", fmt.Sprintf("r%02d", i), 100-i, spec), Listeners: []gatewayv1.SectionName{"http"}})
	}
	cutoff := Admit(big, Limits{})
	if cutoff == nil || big[0].Refusal != nil || big[39].Refusal == nil || !strings.Contains(cutoff.Message, "bound of 33554432 bytes") {
		t.Fatalf("40 routes of 1 MiB: cutoff %+v; want the oldest served, the newest refused past 32 MiB", cutoff)
	}

	ordinary := resolvedInput(t, gw, nil)
	for i := range 5000 {
		r := route(t, fmt.Sprintf("team-%d", i%10), fmt.Sprintf("r%d", i), i%7,
			fmt.Sprintf(`{hostnames: [app%d.example], rules: [{matches: [{path: {value: /api}, headers: [{name: x-version, value: v1}]}], backendRefs: [{name: svc%d, port: 80}]}]}`, i, i))
		ordinary.Routes = append(ordinary.Routes, RouteInput{Route: r, Listeners: []gatewayv1.SectionName{"http"}})
	}
	var wide []string
	for i := range 128 {
		wide = append(wide, fmt.Sprintf(`{path: {value: /m%d}, headers: [{name: x-a, value: b}]}`, i))
	}
	ordinary.Routes = append(ordinary.Routes, RouteInput{Route: route(t, "big", "wide", 0, `{rules: [{matches: [`+strings.Join(wide, ",")+`]}]}`), Listeners: []gatewayv1.SectionName{"http"}})
	if cutoff := Admit(ordinary.Routes, Limits{}); cutoff != nil {
		t.Errorf("5,000 ordinary routes and one of 128 matches: cutoff %+v, want none", cutoff)
	}
}

// A route's hostnames and listeners multiply its matches in the table: routes within
// the count and bytes bounds can still ask for millions of entries, and the newest past
// the entries bound are refused.
func TestTheNewestRoutesPastTheTableEntriesAreRefused(t *testing.T) {
	var hostnames, matches []string
	for i := range 16 {
		hostnames = append(hostnames, fmt.Sprintf("h%d.example", i))
	}
	for i := range 128 {
		matches = append(matches, fmt.Sprintf("{path: {value: /m%d}}", i))
	}
	spec := `{hostnames: [` + strings.Join(hostnames, ",") + `], rules: [{matches: [` + strings.Join(matches, ",") + `]}]}`
	var listeners []gatewayv1.SectionName
	for i := range 8 {
		listeners = append(listeners, gatewayv1.SectionName(fmt.Sprintf("l%d", i)))
	}
	var routes []RouteInput
	for i := range 20 { // 16,384 entries each
		routes = append(routes, RouteInput{Route: route(t, "wide", fmt.Sprintf("r%02d", i), 100-i, spec), Listeners: listeners})
	}
	cutoff := Admit(routes, Limits{})
	if cutoff == nil || cutoff.Name != "r15" || routes[14].Refusal != nil || routes[15].Refusal == nil ||
		!strings.Contains(cutoff.Message, "the next, of 16384 (matches × hostnames × listeners), would pass its bound of 250000 entries") {
		t.Fatalf("cutoff %+v; want the 16th route refused, 15 served (245,760 entries)", cutoff)
	}
}

// Routes of every kind share the Gateway's bounds in one admission order: a tenant's
// TCPRoutes cannot grow past the count or bytes any more than HTTPRoutes can, an older
// HTTPRoute keeps its place against newer routes of another kind, and a route of
// another kind and an HTTPRoute of the same name are told apart.
func TestRoutesOfEveryKindShareTheBoundsInOneOrder(t *testing.T) {
	at := func(minutes int) metav1.Time {
		return metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute))
	}
	http := []RouteInput{
		{Route: route(t, "team-a", "web", -1, `{rules: [{}]}`), Listeners: []gatewayv1.SectionName{"http"}},
		{Route: route(t, "team-a", "late", -50, `{rules: [{}]}`), Listeners: []gatewayv1.SectionName{"http"}},
	}
	var others []routes.Route
	for i := range 20 {
		tcp := &gatewayv1.TCPRoute{Spec: gatewayv1.TCPRouteSpec{Rules: []gatewayv1.TCPRouteRule{{BackendRefs: []gatewayv1.BackendRef{{BackendObjectReference: gatewayv1.BackendObjectReference{Name: "db"}}}}}}}
		tcp.Namespace, tcp.Name, tcp.CreationTimestamp = "team-b", fmt.Sprintf("t%02d", i), at(10+i)
		others = append(others, tcp)
	}
	// A GRPCRoute named as the oldest HTTPRoute, created in the same second.
	grpc := &gatewayv1.GRPCRoute{Spec: gatewayv1.GRPCRouteSpec{Rules: []gatewayv1.GRPCRouteRule{{}}}}
	grpc.Namespace, grpc.Name, grpc.CreationTimestamp = "team-a", "web", http[0].Route.GetCreationTimestamp()
	others = append(others, grpc)

	http = append(http, inputsOf(others)...)
	cutoff := Admit(http, Limits{Routes: 12})
	if cutoff == nil || cutoff.Kind != routes.KindTCPRoute || cutoff.Name != "t10" {
		t.Fatalf("cutoff %+v, want at TCPRoute t10: 12 routes fit, 2 of them HTTPRoutes and the GRPCRoute", cutoff)
	}
	if http[0].Refusal != nil || cutoff.Refuses(grpc) || cutoff.Refuses(others[9]) || !cutoff.Refuses(others[10]) || !cutoff.Refuses(others[19]) {
		t.Errorf("want the routes older than t10 served, t10 and newer refused")
	}
	if http[1].Refusal == nil || http[1].Refusal.Reason != ReasonRouteLimit {
		t.Errorf("the HTTPRoute created after every TCPRoute: refusal %+v, want %s", http[1].Refusal, ReasonRouteLimit)
	}

	// A cutoff recorded before kinds were bounded names an HTTPRoute.
	legacy := &Cutoff{CreationTimestamp: grpc.CreationTimestamp, Namespace: "team-a", Name: "web"}
	if !legacy.Refuses(http[0].Route) || legacy.Refuses(grpc) {
		t.Errorf("a cutoff with no kind refuses the HTTPRoute it names and what follows it (the GRPCRoute of the same name sorts before)")
	}

	var big []routes.Route
	value := strings.Repeat("h", 200)
	for i := range 300 {
		tls := &gatewayv1.TLSRoute{}
		for h := range 16 {
			tls.Spec.Hostnames = append(tls.Spec.Hostnames, gatewayv1.Hostname(fmt.Sprintf("%s%d.example", value, h)))
		}
		tls.Spec.Rules = []gatewayv1.TLSRouteRule{{BackendRefs: []gatewayv1.BackendRef{{BackendObjectReference: gatewayv1.BackendObjectReference{Name: "svc"}}}}}
		tls.Namespace, tls.Name, tls.CreationTimestamp = "team-b", fmt.Sprintf("tls%03d", i), at(i)
		big = append(big, tls)
	}
	if cutoff := Admit(inputsOf(big), Limits{Bytes: 512 << 10}); cutoff == nil || cutoff.Kind != routes.KindTLSRoute || !strings.Contains(cutoff.Message, "bound of 524288 bytes") {
		t.Errorf("TLSRoutes of 3 KiB each past 512 KiB: cutoff %+v, want the newest refused by bytes", cutoff)
	}
}

// The largest ordinary Gateway of mixed kinds fits the default bounds.
func TestTheLargestOrdinaryGatewayOfEveryKindFits(t *testing.T) {
	var http []RouteInput
	var others []routes.Route
	for i := range 2500 {
		r := route(t, fmt.Sprintf("team-%d", i%10), fmt.Sprintf("h%d", i), i%7,
			fmt.Sprintf(`{hostnames: [app%d.example], rules: [{matches: [{path: {value: /api}}], backendRefs: [{name: svc%d, port: 80}]}]}`, i, i))
		http = append(http, RouteInput{Route: r, Listeners: []gatewayv1.SectionName{"http"}})
		g := &gatewayv1.GRPCRoute{}
		g.Namespace, g.Name = fmt.Sprintf("team-%d", i%10), fmt.Sprintf("g%d", i)
		g.Spec.Hostnames = []gatewayv1.Hostname{gatewayv1.Hostname(fmt.Sprintf("rpc%d.example", i))}
		g.Spec.Rules = []gatewayv1.GRPCRouteRule{{BackendRefs: []gatewayv1.GRPCBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{Name: "svc"}}}}}}
		others = append(others, g)
	}
	var wide []gatewayv1.GRPCRouteMatch
	for i := range 64 {
		method := fmt.Sprintf("M%d", i)
		wide = append(wide, gatewayv1.GRPCRouteMatch{Method: &gatewayv1.GRPCMethodMatch{Service: ptrTo("pkg.Svc"), Method: &method}})
	}
	g := &gatewayv1.GRPCRoute{Spec: gatewayv1.GRPCRouteSpec{Rules: []gatewayv1.GRPCRouteRule{{Matches: wide}, {Matches: wide}}}}
	g.Namespace, g.Name = "big", "wide"
	others = append(others, g)
	if cutoff := Admit(append(http, inputsOf(others)...), Limits{}); cutoff != nil {
		t.Errorf("2,500 HTTPRoutes, 2,500 GRPCRoutes and one of 128 matches: cutoff %+v, want none", cutoff)
	}
}

func ptrTo[T any](v T) *T { return &v }

// inputsOf are routes of any kind as the table's input, attached to no listener.
func inputsOf(in []routes.Route) []RouteInput {
	out := make([]RouteInput, len(in))
	for i, r := range in {
		out[i] = RouteInput{Route: r}
	}
	return out
}

// Ties order by "{namespace}/{name}" as a whole string, which the comparison that builds
// no strings must agree with, also where one namespace is a prefix of another.
func TestNamespacedNamesCompareAsTheirJoinedStrings(t *testing.T) {
	parts := []string{"", "a", "a-b", "a.b", "ab", "a/b", "b", "team", "team-a", "team0", "zz"}
	for _, nsA := range parts {
		for _, nameA := range parts {
			for _, nsB := range parts {
				for _, nameB := range parts {
					want := strings.Compare(nsA+"/"+nameA, nsB+"/"+nameB)
					if got := CompareNamespacedNames(nsA, nameA, nsB, nameB); got != want {
						t.Fatalf("%q/%q against %q/%q: %d, want %d", nsA, nameA, nsB, nameB, got, want)
					}
				}
			}
		}
	}
}

// The bounds and the table read a route's facts when the caller keeps them, and come out
// as when they read every route: whatever the kind, hostnames, matches and listeners.
func TestTheBoundsAndTableReadTheFactsKeptAsTheRoutes(t *testing.T) {
	var in []RouteInput
	for i := range 40 {
		spec := fmt.Sprintf(`{hostnames: [a%d.example, b.example], rules: [{matches: [{path: {value: /%d}}, {path: {value: /x}}]}, {}]}`, i, i)
		in = append(in, RouteInput{Route: route(t, fmt.Sprintf("team-%d", i%3), fmt.Sprintf("r%02d", i), 100-i, spec), Listeners: []gatewayv1.SectionName{"http", "l1"}})
	}
	tcp := &gatewayv1.TCPRoute{Spec: gatewayv1.TCPRouteSpec{Rules: []gatewayv1.TCPRouteRule{{BackendRefs: []gatewayv1.BackendRef{{BackendObjectReference: gatewayv1.BackendObjectReference{Name: "db"}}}}}}}
	tcp.Namespace, tcp.Name = "team-b", "t"
	in = append(in, inputsOf([]routes.Route{tcp})...)
	with := func(facts bool) []RouteInput {
		out := slices.Clone(in)
		for i := range out {
			if facts {
				out[i].Facts = FactsOf(out[i].Route)
			}
		}
		return out
	}
	for _, limits := range []Limits{{}, {Routes: 25}, {Entries: 100}, {Bytes: 3000}} {
		read, kept := with(false), with(true)
		cutRead, cutKept := Admit(read, limits), Admit(kept, limits)
		if !reflect.DeepEqual(cutRead, cutKept) {
			t.Errorf("limits %+v: cutoff %+v reading the routes, %+v from their facts", limits, cutRead, cutKept)
		}
		for i := range read {
			if !reflect.DeepEqual(read[i].Refusal, kept[i].Refusal) {
				t.Errorf("limits %+v: route %d refused %+v reading it, %+v from its facts", limits, i, read[i].Refusal, kept[i].Refusal)
			}
		}
		gw := gateway(t)
		if a, b := Build(Input{Gateway: gw, Listeners: judged(gw), Routes: read}), Build(Input{Gateway: gw, Listeners: judged(gw), Routes: kept}); !reflect.DeepEqual(a, b) {
			t.Errorf("limits %+v: the table differs with the facts kept", limits)
		}
	}
	// What the facts say is what counts: a route they say is large is refused by bytes.
	large := with(true)
	large[0].Facts = &RouteFacts{Ref: large[0].Facts.Ref, SpecBytes: DefaultLimits.Bytes + 1, Entries: 1}
	if cutoff := Admit(large, Limits{}); cutoff == nil || cutoff.Name != "r00" {
		t.Errorf("a route whose facts pass the bytes bound: cutoff %+v, want it refused", cutoff)
	}
}
