package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routing"
)

// .RouteTable is built by hand for speed; it must be exactly what the converter makes of
// the table, field by field, nil and empty lists told apart, whatever a route holds.
func TestRouteTableDataIsTheConvertersForm(t *testing.T) {
	timeout := gatewayv1.Duration("5s")
	status := 301
	full := routing.Match{
		Route: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "team-a", Name: "web"}, Rule: 1, RuleName: "api", Match: 2,
		Name: "team-a/web/rule/1/match/2", Path: routing.PathMatch{Type: "Exact", Value: "/api"}, Method: "GET",
		Headers:     []routing.ValueMatch{{Type: "Exact", Name: "x-version", Value: "v1"}},
		QueryParams: []routing.ValueMatch{{Type: "RegularExpression", Name: "q", Value: "a.*"}},
		Filters: []gatewayv1.HTTPRouteFilter{
			{Type: gatewayv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gatewayv1.HTTPRequestRedirectFilter{StatusCode: &status}},
			{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier, RequestHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "a", Value: "b"}}}},
		},
		Backends: []routing.HTTPBackend{
			{Backend: routing.Backend{Group: "", Kind: "Service", Namespace: "team-a", Name: "svc", Port: 8080, Weight: 3, Resolved: true, Reason: "ResolvedRefs"},
				Filters: []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterResponseHeaderModifier, ResponseHeaderModifier: &gatewayv1.HTTPHeaderFilter{Remove: []string{"x"}}}}},
			{Backend: routing.Backend{Kind: "Service", Name: "gone", Reason: "BackendNotFound"}},
		},
		Timeouts: &gatewayv1.HTTPRouteTimeouts{Request: &timeout},
	}
	grpc := routing.GRPCMatch{
		Route: routing.ObjectRef{Kind: "GRPCRoute", Namespace: "team-a", Name: "web"}, Rule: 1, RuleName: "api", Match: 0,
		Name: "grpcroute/team-a/web/rule/1/match/0", Method: routing.GRPCMethodMatch{Type: "Exact", Service: "pkg.Svc", Method: "Get"},
		Headers: []routing.ValueMatch{{Type: "Exact", Name: "x-version", Value: "v1"}},
		Filters: []gatewayv1.GRPCRouteFilter{{Type: gatewayv1.GRPCRouteFilterRequestHeaderModifier, RequestHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "a", Value: "b"}}}}},
		Backends: []routing.GRPCBackend{
			{Backend: routing.Backend{Kind: "Service", Namespace: "team-a", Name: "rpc", Port: 9000, Weight: 1, Resolved: true, Reason: "ResolvedRefs"}, Filters: []gatewayv1.GRPCRouteFilter{}},
			{Backend: routing.Backend{Kind: "Service", Name: "gone", Reason: "BackendNotFound"}},
		},
	}
	l4 := routing.L4Route{Route: routing.ObjectRef{Kind: "TCPRoute", Namespace: "team-b", Name: "db"},
		Backends: []routing.Backend{{Kind: "Service", Namespace: "team-b", Name: "db", Port: 5432, Weight: 1, Resolved: true, Reason: "ResolvedRefs"}}}
	tables := map[string]*routing.Table{
		"every field": {
			Listeners: []routing.Listener{
				{Name: "https", Port: 443, Protocol: "HTTPS", Hostname: "*.example.com", TLSMode: "Terminate", Valid: true,
					Certificates: []routing.ObjectRef{{Kind: "Secret", Namespace: "infra", Name: "cert"}},
					Hosts:        []routing.Host{{Hostname: "a.example.com", Matches: []*routing.Match{&full, {Route: full.Route, Path: routing.PathMatch{Type: "PathPrefix", Value: "/"}}}}}},
				{Name: "tcp", Port: 5432, Protocol: "TCP", Certificates: []routing.ObjectRef{}, Hosts: []routing.Host{},
					ListenerSet: &routing.ObjectRef{Kind: "ListenerSet", Namespace: "team-b", Name: "extra"}},
				{Name: "empty-host", Hosts: []routing.Host{{Hostname: "*", Matches: []*routing.Match{}}}},
			},
			Routes: []routing.RouteVerdict{
				{ObjectRef: full.Route, Accepted: true, Listeners: []string{"https", "http"}},
				{ObjectRef: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "b", Name: "refused"}, Reason: "RouteLimitExceeded", Message: "past the bound"},
				{ObjectRef: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "b", Name: "none"}, Listeners: []string{}},
			},
		},
		"every kind": {
			Listeners: []routing.Listener{
				{Name: "grpc", Port: 443, Protocol: "HTTPS", Valid: true, Hosts: []routing.Host{{Hostname: "*", Matches: []*routing.Match{}, GRPCMatches: []routing.GRPCMatch{grpc, {Route: grpc.Route}}}}},
				{Name: "tls", Port: 8443, Protocol: "TLS", TLSMode: "Passthrough", Valid: true, Hosts: []routing.Host{{Hostname: "db.example.com", Matches: []*routing.Match{}, TLSRoutes: []routing.L4Route{l4, {Route: l4.Route}}}}},
				{Name: "tcp", Port: 5432, Protocol: "TCP", Valid: true, Hosts: []routing.Host{}, Routes: []routing.L4Route{l4}},
			},
			Routes: []routing.RouteVerdict{{ObjectRef: grpc.Route, Accepted: true, Listeners: []string{"grpc"}}},
		},
		"empty lists": {Listeners: []routing.Listener{}, Routes: []routing.RouteVerdict{}},
		"nil lists":   {},
	}
	for name, table := range tables {
		t.Run(name, func(t *testing.T) {
			want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(table)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, routeTableData(table, nil)); diff != "" {
				t.Errorf("routeTableData differs from the converter's form (-converter +routeTableData):\n%s", diff)
			}
		})
	}
	want, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&routing.Table{Listeners: []routing.Listener{}, Routes: []routing.RouteVerdict{}})
	if diff := cmp.Diff(want, routeTableData(nil, nil)); diff != "" {
		t.Errorf("no table: %s", diff)
	}
}
