package routing

import (
	"fmt"
	"strings"
	"testing"
	"time"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routes"
)

// conflictListeners are the hostnames of the listeners the conflict tests attach to:
// "http" takes every name, "shop" those under shop.example.
var conflictListeners = map[gatewayv1.SectionName]string{"http": "", "shop": "*.shop.example"}

type contenderSpec struct {
	kind, namespace, name string
	age                   int // minutes
	hostnames             string
	listeners             []gatewayv1.SectionName
	refused               bool // by something else before the judging
}

func TestTheNewerOfAnHTTPRouteAndAGRPCRouteSharingAHostnameIsRefused(t *testing.T) {
	on := func(names ...gatewayv1.SectionName) []gatewayv1.SectionName { return names }
	for _, tc := range []struct {
		name   string
		routes []contenderSpec
		// refused are the routes refused for a conflict, by name, with how each names
		// the older: of another namespace, by kind alone.
		refused map[string]string
	}{{
		name: "an older GRPCRoute beats a newer HTTPRoute on the same listener and hostname",
		routes: []contenderSpec{
			{kind: routes.KindHTTPRoute, namespace: "a", name: "web", age: 1, hostnames: "[api.example]", listeners: on("http")},
			{kind: routes.KindGRPCRoute, namespace: "b", name: "rpc", age: 2, hostnames: "[api.example]", listeners: on("http")},
		},
		refused: map[string]string{"web": "an older GRPCRoute of another namespace"},
	}, {
		name: "disjoint hostnames do not conflict",
		routes: []contenderSpec{
			{kind: routes.KindHTTPRoute, namespace: "a", name: "web", age: 1, hostnames: "[www.example]", listeners: on("http")},
			{kind: routes.KindGRPCRoute, namespace: "b", name: "rpc", age: 2, hostnames: "[api.example]", listeners: on("http")},
		},
	}, {
		name: "different listeners do not conflict",
		routes: []contenderSpec{
			{kind: routes.KindHTTPRoute, namespace: "a", name: "web", age: 1, hostnames: "[a.shop.example]", listeners: on("shop")},
			{kind: routes.KindGRPCRoute, namespace: "b", name: "rpc", age: 2, hostnames: "[a.shop.example]", listeners: on("http")},
		},
	}, {
		name: "a wildcard intersects the names under it",
		routes: []contenderSpec{
			{kind: routes.KindHTTPRoute, namespace: "a", name: "web", age: 2, hostnames: "['*.example']", listeners: on("http")},
			{kind: routes.KindGRPCRoute, namespace: "b", name: "rpc", age: 1, hostnames: "[api.example]", listeners: on("http")},
		},
		refused: map[string]string{"rpc": "an older HTTPRoute of another namespace"},
	}, {
		name: "a route without hostnames takes the listener's, which intersect",
		routes: []contenderSpec{
			{kind: routes.KindGRPCRoute, namespace: "a", name: "rpc", age: 2, hostnames: "[]", listeners: on("shop")},
			{kind: routes.KindHTTPRoute, namespace: "b", name: "web", age: 1, hostnames: "[a.shop.example]", listeners: on("shop")},
		},
		refused: map[string]string{"web": "an older GRPCRoute of another namespace"},
	}, {
		name: "of two as old, the first by namespace/name wins",
		routes: []contenderSpec{
			{kind: routes.KindHTTPRoute, namespace: "b", name: "web", age: 1, hostnames: "[api.example]", listeners: on("http")},
			{kind: routes.KindGRPCRoute, namespace: "a", name: "rpc", age: 1, hostnames: "[api.example]", listeners: on("http")},
		},
		refused: map[string]string{"web": "an older GRPCRoute of another namespace"},
	}, {
		name: "a route refused by a bound neither wins nor loses",
		routes: []contenderSpec{
			{kind: routes.KindGRPCRoute, namespace: "a", name: "rpc", age: 2, hostnames: "[api.example]", listeners: on("http"), refused: true},
			{kind: routes.KindHTTPRoute, namespace: "b", name: "web", age: 1, hostnames: "[api.example]", listeners: on("http")},
		},
	}, {
		name: "routes of one kind do not conflict",
		routes: []contenderSpec{
			{kind: routes.KindHTTPRoute, namespace: "a", name: "web", age: 2, hostnames: "[api.example]", listeners: on("http")},
			{kind: routes.KindHTTPRoute, namespace: "b", name: "web", age: 1, hostnames: "[api.example]", listeners: on("http")},
			{kind: routes.KindTLSRoute, namespace: "c", name: "tls", age: 3, hostnames: "[api.example]", listeners: on("http")},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			in := make([]RouteInput, len(tc.routes))
			for i, s := range tc.routes {
				in[i] = RouteInput{Route: kindRoute(t, s.kind, s.namespace, s.name, s.age, "{hostnames: "+s.hostnames+"}"), Listeners: s.listeners}
				if s.refused {
					in[i].Refusal = &Refusal{Reason: ReasonRouteLimit}
				}
			}
			RefuseKindConflicts(in, conflictListeners)
			for i, s := range tc.routes {
				refusal, older := in[i].Refusal, tc.refused[s.name]
				switch {
				case s.refused && refusal.Reason != ReasonRouteLimit:
					t.Errorf("%s: refusal %+v, want the bound's kept", s.name, refusal)
				case s.refused:
				case older == "" && refusal != nil:
					t.Errorf("%s: refused %+v, want accepted", s.name, refusal)
				case older != "" && (refusal == nil || refusal.Reason != ReasonHostnameConflict || !strings.Contains(refusal.Message, older)):
					t.Errorf("%s: refusal %+v, want %s naming %s", s.name, refusal, ReasonHostnameConflict, older)
				}
			}
		})
	}
}

// Of the route's own namespace, the message names the older route; of another, its kind
// alone (the cases above).
func TestTheConflictMessageNamesTheListenerAndTheSharedHostname(t *testing.T) {
	in := []RouteInput{
		{Route: kindRoute(t, routes.KindGRPCRoute, "a", "rpc", 2, "{hostnames: ['*.shop.example']}"), Listeners: []gatewayv1.SectionName{"shop"}},
		{Route: kindRoute(t, routes.KindHTTPRoute, "a", "web", 1, "{hostnames: [cart.shop.example]}"), Listeners: []gatewayv1.SectionName{"shop"}},
	}
	RefuseKindConflicts(in, conflictListeners)
	if r := in[1].Refusal; r == nil || !strings.Contains(r.Message, "GRPCRoute a/rpc, older, serves hostname cart.shop.example on listener shop") {
		t.Errorf("refusal %+v, want one naming the GRPCRoute of its namespace, the hostname and the listener", r)
	}
}

// A Gateway of HTTPRoutes alone pays nothing for the rule.
func TestManyHTTPRoutesAndNoGRPCRouteAreUnaffected(t *testing.T) {
	in := make([]RouteInput, 5000)
	for i := range in {
		in[i] = RouteInput{Route: route(t, fmt.Sprintf("team-%d", i%10), fmt.Sprintf("r%d", i), i%7, `{hostnames: [app.example]}`), Listeners: []gatewayv1.SectionName{"http"}}
	}
	start := time.Now()
	RefuseKindConflicts(in, conflictListeners)
	if took := time.Since(start); took > 50*time.Millisecond {
		t.Errorf("took %v for 5,000 HTTPRoutes and no GRPCRoute, want next to nothing", took)
	}
	for i := range in {
		if in[i].Refusal != nil {
			t.Fatalf("route %d refused: %+v", i, in[i].Refusal)
		}
	}
}

// One GRPCRoute among 5,000 HTTPRoutes costs a comparison per HTTPRoute, not per pair
// of them.
func TestOneGRPCRouteAmongManyHTTPRoutesIsJudgedOnce(t *testing.T) {
	in := make([]RouteInput, 0, 5001)
	for i := range 5000 {
		in = append(in, RouteInput{Route: route(t, fmt.Sprintf("team-%d", i%10), fmt.Sprintf("r%d", i), 10, fmt.Sprintf(`{hostnames: [app%d.example]}`, i)), Listeners: []gatewayv1.SectionName{"http"}})
	}
	in = append(in, RouteInput{Route: kindRoute(t, routes.KindGRPCRoute, "rpc", "rpc", 20, `{hostnames: [app7.example]}`), Listeners: []gatewayv1.SectionName{"http"}})
	RefuseKindConflicts(in, conflictListeners)
	for i := range in {
		if want := i == 7; (in[i].Refusal != nil) != want {
			t.Errorf("route %d refused %+v, want refused %v", i, in[i].Refusal, want)
		}
	}
}

func TestHostnamesMayMeetUnlessBothNameDisjointOnes(t *testing.T) {
	names := func(s ...gatewayv1.Hostname) []gatewayv1.Hostname { return s }
	for _, tc := range []struct {
		a, b []gatewayv1.Hostname
		want bool
	}{
		{names("api.example"), names("api.example"), true},
		{names("*.example"), names("api.example"), true},
		{nil, names("api.example"), true},
		{names("www.example"), names("api.example"), false},
		{names("*.shop.example"), names("*.cart.example"), false},
	} {
		if got := HostnamesMayMeet(tc.a, tc.b); got != tc.want {
			t.Errorf("HostnamesMayMeet(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
