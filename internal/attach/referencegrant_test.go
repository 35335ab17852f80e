package attach

import (
	"slices"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

const grantsYAML = `
- metadata: {name: any-service, namespace: backends}
  spec:
    from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]
    to: [{group: "", kind: Service}]
- metadata: {name: one-service, namespace: payments}
  spec:
    from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]
    to: [{group: "", kind: Service, name: card}]
- metadata: {name: grpc-only, namespace: search}
  spec:
    from: [{group: gateway.networking.k8s.io, kind: GRPCRoute, namespace: shop}]
    to: [{group: "", kind: Service}]
`

func TestReferencePermitted(t *testing.T) {
	var grants []gatewayv1.ReferenceGrant
	if err := yaml.UnmarshalStrict([]byte(grantsYAML), &grants); err != nil {
		t.Fatal(err)
	}
	route := func(ns string) Referrer {
		return Referrer{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Namespace: ns}
	}
	service := func(ns, name string) Referent { return Referent{Kind: "Service", Namespace: ns, Name: name} }
	tests := []struct {
		name string
		from Referrer
		to   Referent
		want bool
	}{
		{"a reference within one namespace needs no grant", route("shop"), service("shop", "web"), true},
		{"a grant without a name lets every Service of its namespace be referred to", route("shop"), service("backends", "web"), true},
		{"a grant with a name lets that Service be referred to", route("shop"), service("payments", "card"), true},
		{"a grant with a name does not cover another Service", route("shop"), service("payments", "ledger"), false},
		{"a grant covers only the namespace listed in from", route("blog"), service("backends", "web"), false},
		{"a grant covers only the kind listed in from", route("shop"), service("search", "index"), false},
		{"a grant covers only the kind listed in to", route("shop"), Referent{Kind: "Secret", Namespace: "backends", Name: "tls"}, false},
		{"a grant in another namespace does not count", route("shop"), service("elsewhere", "web"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReferencePermitted(grants, tt.from, tt.to); got != tt.want {
				t.Errorf("ReferencePermitted = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReferrerNamespaces(t *testing.T) {
	var grant gatewayv1.ReferenceGrant
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: certificates, namespace: certs}
spec:
  from:
  - {group: gateway.networking.k8s.io, kind: Gateway, namespace: team-a}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: team-b}
  - {group: gateway.networking.k8s.io, kind: Gateway, namespace: team-c}
  to: [{group: "", kind: Secret}]`), &grant); err != nil {
		t.Fatal(err)
	}
	if got := ReferrerNamespaces(&grant, gatewayv1.GroupName, "Gateway"); !slices.Equal(got, []string{"team-a", "team-c"}) {
		t.Errorf("Gateways: got %v, want [team-a team-c]", got)
	}
	if got := ReferrerNamespaces(&grant, gatewayv1.GroupName, "HTTPRoute"); !slices.Equal(got, []string{"team-b"}) {
		t.Errorf("HTTPRoutes: got %v, want [team-b]", got)
	}
}
