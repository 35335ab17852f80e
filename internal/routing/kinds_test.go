package routing

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
)

const kindsGateway = `
metadata: {name: edge, namespace: infra}
spec:
  gatewayClassName: c
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: tls, protocol: TLS, port: 8443, hostname: "*.example.com", tls: {mode: Passthrough}}
  - {name: tcp, protocol: TCP, port: 5432}
  - {name: udp, protocol: UDP, port: 53}
`

// kindsInput is the Gateway of every protocol and each route attached to the listeners
// named, every backendRef resolving but those to a Service named "gone".
func kindsInput(t *testing.T, attached map[routes.Route][]gatewayv1.SectionName) Input {
	t.Helper()
	gw := &gatewayv1.Gateway{}
	if err := yaml.UnmarshalStrict([]byte(kindsGateway), gw); err != nil {
		t.Fatal(err)
	}
	serves := listeners.NewServes([]gatewayv1.ProtocolType{"HTTP", "TLS", "TCP", "UDP"}, []gatewayv1.TLSModeType{"Passthrough"}, []gatewayv1.Kind{"HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"})
	in := Input{Gateway: gw, Listeners: listeners.Evaluate(serves, gw.Spec.Listeners, nil)}
	for r, names := range attached {
		res, err := attach.ResolveBackendRefs(r, nil, func(_, name string) (bool, error) { return name != "gone", nil })
		if err != nil {
			t.Fatal(err)
		}
		in.Routes = append(in.Routes, RouteInput{Route: r, Listeners: names, BackendRefs: res.BackendRefs})
	}
	return in
}

// kindRoute parses a route of kind and of the given age in minutes from its spec.
func kindRoute(t *testing.T, kind, namespace, name string, ageMinutes int, spec string) routes.Route {
	t.Helper()
	r := routes.New(kind)
	if err := yaml.UnmarshalStrict([]byte(spec), routes.Spec(r)); err != nil {
		t.Fatal(err)
	}
	r.SetNamespace(namespace)
	r.SetName(name)
	r.SetCreationTimestamp(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(ageMinutes) * time.Minute)))
	return r
}

func listenerNamed(t *testing.T, table *Table, name string) Listener {
	t.Helper()
	for _, l := range table.Listeners {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no listener %s", name)
	return Listener{}
}

func grpcMatchNames(h Host) []string {
	var out []string
	for _, m := range h.GRPCMatches {
		out = append(out, m.Name)
	}
	return out
}

func l4RouteNames(in []L4Route) []string {
	var out []string
	for _, r := range in {
		out = append(out, r.Route.Kind+" "+r.Route.Namespace+"/"+r.Route.Name)
	}
	return out
}

func TestGRPCMatchesAreInGRPCRoutePrecedence(t *testing.T) {
	http := []gatewayv1.SectionName{"http"}
	in := kindsInput(t, map[routes.Route][]gatewayv1.SectionName{
		kindRoute(t, routes.KindGRPCRoute, "a", "any", 10, `{rules: [{backendRefs: [{name: svc, port: 9000}]}]}`): http,
		kindRoute(t, routes.KindGRPCRoute, "a", "svc", 0, `{rules: [
		  {matches: [{method: {service: pkg.Svc}}, {method: {service: pkg.Svc, method: Get}}]},
		  {matches: [{method: {method: GetLonger}}, {method: {service: pkg.Svc, method: Get}, headers: [{name: X-Version, value: v1}]}]}]}`): http,
		kindRoute(t, routes.KindGRPCRoute, "a", "old", 5, `{rules: [{matches: [{method: {service: pkg.Svc, method: Get}}]}]}`):                      http,
		kindRoute(t, routes.KindGRPCRoute, "b", "longer", 0, `{rules: [{matches: [{method: {type: RegularExpression, service: "pkg\\..*Svc"}}]}]}`): http,
		kindRoute(t, routes.KindGRPCRoute, "a", "named", 0, `{hostnames: [rpc.example.com], rules: [{matches: [{method: {service: pkg.Svc}}]}]}`):   http,
	})
	table := Build(in)
	l := listenerNamed(t, table, "http")
	if got, want := hostNames(l), []string{"rpc.example.com", "*"}; !slices.Equal(got, want) {
		t.Fatalf("hosts %v, want %v", got, want)
	}
	star := l.Hosts[1]
	want := []string{
		"grpcroute/b/longer/rule/0/match/0", // the most characters in the service
		"grpcroute/a/svc/rule/1/match/1",    // pkg.Svc and Get, a header match
		"grpcroute/a/old/rule/0/match/0",    // pkg.Svc and Get, the older route
		"grpcroute/a/svc/rule/0/match/1",    // pkg.Svc and Get, the newer route
		"grpcroute/a/svc/rule/0/match/0",    // pkg.Svc, any method
		"grpcroute/a/svc/rule/1/match/0",    // any service: the longer method
		"grpcroute/a/any/rule/0/match/0",    // every request
	}
	if got := grpcMatchNames(star); !slices.Equal(got, want) {
		t.Errorf("grpc matches of *:\n got %v\nwant %v", got, want)
	}
	if len(star.Matches) != 0 {
		t.Errorf("HTTP matches %v, want none: gRPC matches are apart", matchNames(star))
	}
	first := star.GRPCMatches[1]
	if first.Method != (GRPCMethodMatch{Type: "Exact", Service: "pkg.Svc", Method: "Get"}) || len(first.Headers) != 1 || first.Headers[0] != (ValueMatch{Type: "Exact", Name: "x-version", Value: "v1"}) {
		t.Errorf("match %s normalized as %+v %+v", first.Name, first.Method, first.Headers)
	}
	any := star.GRPCMatches[6]
	if want := (Backend{Kind: "Service", Namespace: "a", Name: "svc", Port: 9000, Weight: 1, Resolved: true, Reason: "ResolvedRefs"}); len(any.Backends) != 1 || any.Backends[0].Backend != want {
		t.Errorf("backends %+v, want %+v", any.Backends, want)
	}
	if got := grpcMatchNames(l.Hosts[0]); !slices.Equal(got, []string{"grpcroute/a/named/rule/0/match/0"}) {
		t.Errorf("grpc matches of rpc.example.com: %v", got)
	}
}

func TestTLSRoutesServeTheirHostnamesWithinTheListeners(t *testing.T) {
	tls := []gatewayv1.SectionName{"tls"}
	in := kindsInput(t, map[routes.Route][]gatewayv1.SectionName{
		kindRoute(t, routes.KindTLSRoute, "a", "db", 0, `{hostnames: [db.example.com, db.example.net], rules: [{backendRefs: [{name: db, port: 5432}, {name: gone, port: 5432, weight: 2}]}]}`): tls,
		kindRoute(t, routes.KindTLSRoute, "a", "all", 0, `{rules: [{backendRefs: [{name: all, port: 443}]}]}`):                                                                                  tls,
		kindRoute(t, routes.KindTLSRoute, "b", "older", 5, `{hostnames: ["*.com"], rules: [{backendRefs: [{name: old, port: 443}]}]}`):                                                          tls,
	})
	l := listenerNamed(t, Build(in), "tls")
	if got, want := hostNames(l), []string{"db.example.com", "*.example.com"}; !slices.Equal(got, want) {
		t.Fatalf("hosts %v, want %v: the listener's hostname bounds each route's", got, want)
	}
	if got, want := l4RouteNames(l.Hosts[0].TLSRoutes), []string{"TLSRoute a/db"}; !slices.Equal(got, want) {
		t.Errorf("db.example.com: %v, want %v", got, want)
	}
	if got, want := l4RouteNames(l.Hosts[1].TLSRoutes), []string{"TLSRoute b/older", "TLSRoute a/all"}; !slices.Equal(got, want) {
		t.Errorf("*.example.com: %v, want %v (the oldest first)", got, want)
	}
	backends := l.Hosts[0].TLSRoutes[0].Backends
	if len(backends) != 2 || !backends[0].Resolved || backends[1].Resolved || backends[1].Weight != 2 || backends[1].Reason != "BackendNotFound" {
		t.Errorf("backends %+v", backends)
	}
}

func TestTCPAndUDPListenersCarryTheirRoutes(t *testing.T) {
	in := kindsInput(t, map[routes.Route][]gatewayv1.SectionName{
		kindRoute(t, routes.KindTCPRoute, "b", "db", 0, `{rules: [{backendRefs: [{name: db, port: 5432}]}]}`):                                      {"tcp"},
		kindRoute(t, routes.KindTCPRoute, "a", "db", 0, `{rules: [{backendRefs: [{name: db, port: 5432, weight: 3}, {name: gone, port: 5432}]}]}`): {"tcp"},
		kindRoute(t, routes.KindTCPRoute, "z", "old", 5, `{rules: [{backendRefs: [{name: db, port: 5432}]}]}`):                                     {"tcp"},
		kindRoute(t, routes.KindUDPRoute, "a", "dns", 0, `{rules: [{backendRefs: [{name: dns, port: 53}]}]}`):                                      {"udp"},
	})
	table := Build(in)
	tcp, udp := listenerNamed(t, table, "tcp"), listenerNamed(t, table, "udp")
	if got, want := l4RouteNames(tcp.Routes), []string{"TCPRoute z/old", "TCPRoute a/db", "TCPRoute b/db"}; !slices.Equal(got, want) {
		t.Errorf("tcp routes %v, want %v (oldest first, then by namespace/name)", got, want)
	}
	if got, want := l4RouteNames(udp.Routes), []string{"UDPRoute a/dns"}; !slices.Equal(got, want) {
		t.Errorf("udp routes %v, want %v", got, want)
	}
	want := []Backend{
		{Kind: "Service", Namespace: "a", Name: "db", Port: 5432, Weight: 3, Resolved: true, Reason: "ResolvedRefs"},
		{Kind: "Service", Namespace: "a", Name: "gone", Port: 5432, Weight: 1, Reason: "BackendNotFound"},
	}
	if got := tcp.Routes[1].Backends; !slices.Equal(got, want) {
		t.Errorf("backends %+v, want %+v", got, want)
	}
	if len(tcp.Hosts) != 0 || len(listenerNamed(t, table, "http").Routes) != 0 {
		t.Error("a TCP listener has no hosts, an HTTP listener no routes of its own")
	}
}

func TestARefusedGRPCRouteIsInNoListener(t *testing.T) {
	refused := kindRoute(t, routes.KindGRPCRoute, "a", "refused", 0, `{rules: [{}]}`)
	in := kindsInput(t, map[routes.Route][]gatewayv1.SectionName{
		refused: {"http"},
		kindRoute(t, routes.KindGRPCRoute, "a", "served", 0, `{rules: [{}]}`): {"http"},
	})
	for i := range in.Routes {
		if in.Routes[i].Route == refused {
			in.Routes[i].Refusal = &Refusal{Reason: ReasonRouteLimit, Message: "past the bound"}
		}
	}
	table := Build(in)
	if got := grpcMatchNames(listenerNamed(t, table, "http").Hosts[0]); !slices.Equal(got, []string{"grpcroute/a/served/rule/0/match/0"}) {
		t.Errorf("grpc matches %v, want only the served route's", got)
	}
	want := RouteVerdict{ObjectRef: ObjectRef{Kind: "GRPCRoute", Namespace: "a", Name: "refused"}, Reason: ReasonRouteLimit, Message: "past the bound", Listeners: []string{"http"}}
	if v := table.Routes[0]; v.ObjectRef != want.ObjectRef || v.Accepted || v.Reason != want.Reason || v.Message != want.Message || !slices.Equal(v.Listeners, want.Listeners) {
		t.Errorf("verdict %+v, want %+v", v, want)
	}
}

// An HTTPRoute and a GRPCRoute of one namespace/name are two routes: each has its
// verdict and its matches, named apart.
func TestRoutesOfTwoKindsSharingANameDoNotCollide(t *testing.T) {
	in := kindsInput(t, map[routes.Route][]gatewayv1.SectionName{
		kindRoute(t, routes.KindGRPCRoute, "a", "web", 0, `{rules: [{}]}`): {"http"},
		kindRoute(t, routes.KindHTTPRoute, "a", "web", 0, `{rules: [{}]}`): {"http"},
		kindRoute(t, routes.KindTCPRoute, "a", "web", 0, `{rules: [{}]}`):  {"tcp"},
		kindRoute(t, routes.KindHTTPRoute, "a", "zzz", 0, `{rules: [{}]}`): {"http"},
	})
	table := Build(in)
	var verdicts []string
	for _, v := range table.Routes {
		verdicts = append(verdicts, v.Kind+" "+v.Namespace+"/"+v.Name)
	}
	if want := []string{"HTTPRoute a/web", "HTTPRoute a/zzz", "GRPCRoute a/web", "TCPRoute a/web"}; !slices.Equal(verdicts, want) {
		t.Errorf("verdicts %v, want %v (by kind, then namespace/name)", verdicts, want)
	}
	host := listenerNamed(t, table, "http").Hosts[0]
	if got, want := matchNames(host), []string{"a/web/rule/0/match/0", "a/zzz/rule/0/match/0"}; !slices.Equal(got, want) {
		t.Errorf("HTTP matches %v, want %v", got, want)
	}
	if got, want := grpcMatchNames(host), []string{"grpcroute/a/web/rule/0/match/0"}; !slices.Equal(got, want) {
		t.Errorf("gRPC matches %v, want %v", got, want)
	}
}
