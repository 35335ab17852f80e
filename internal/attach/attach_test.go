package attach

import (
	"slices"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

const gatewayYAML = `
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: internet
  listeners:
  - {name: same, protocol: HTTP, port: 80}
  - {name: all, protocol: HTTP, port: 8080, allowedRoutes: {namespaces: {from: All}}}
  - {name: selected, protocol: HTTPS, port: 443, hostname: "*.example.com", allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {shared: "true"}}}}}
  - {name: tcp, protocol: TCP, port: 9000, allowedRoutes: {namespaces: {from: All}}}
  - {name: grpc-only, protocol: HTTP, port: 8081, allowedRoutes: {namespaces: {from: All}, kinds: [{kind: GRPCRoute}]}}
`

func TestListeners(t *testing.T) {
	var gw gatewayv1.Gateway
	if err := yaml.UnmarshalStrict([]byte(gatewayYAML), &gw); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		route    string
		nsLabels map[string]string
		want     []gatewayv1.SectionName
	}{
		{"a route in the Gateway's namespace attaches to every HTTP listener that takes it",
			`{metadata: {name: r, namespace: infra}, spec: {parentRefs: [{name: web}]}}`, nil, []gatewayv1.SectionName{"same", "all"}},
		{"a route elsewhere attaches only where namespaces are All",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: web, namespace: infra}]}}`, nil, []gatewayv1.SectionName{"all"}},
		{"a route in a selected namespace attaches to the Selector listener when its hostname matches the wildcard",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: web, namespace: infra}], hostnames: [shop.example.com]}}`, map[string]string{"shared": "true"}, []gatewayv1.SectionName{"all", "selected"}},
		{"a hostname outside the listener's wildcard does not attach there",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: web, namespace: infra}], hostnames: [shop.example.org]}}`, map[string]string{"shared": "true"}, []gatewayv1.SectionName{"all"}},
		{"the wildcard does not match the bare domain",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: web, namespace: infra, sectionName: selected}], hostnames: [example.com]}}`, map[string]string{"shared": "true"}, nil},
		{"sectionName picks one listener",
			`{metadata: {name: r, namespace: infra}, spec: {parentRefs: [{name: web, sectionName: all}]}}`, nil, []gatewayv1.SectionName{"all"}},
		{"port picks the listeners on that port",
			`{metadata: {name: r, namespace: infra}, spec: {parentRefs: [{name: web, port: 80}]}}`, nil, []gatewayv1.SectionName{"same"}},
		{"a parentRef to a Gateway of the same name in another namespace does not attach",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: web}]}}`, nil, nil},
		{"a parentRef of another kind does not attach",
			`{metadata: {name: r, namespace: infra}, spec: {parentRefs: [{name: web, kind: Service, group: ""}]}}`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var route gatewayv1.HTTPRoute
			if err := yaml.UnmarshalStrict([]byte(tt.route), &route); err != nil {
				t.Fatal(err)
			}
			if got := Listeners(&gw, &route, tt.nsLabels); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHostnameMatches(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"example.com", "example.com", true},
		{"*.example.com", "a.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "*.a.example.com", true},
		{"a.example.com", "b.example.com", false},
	}
	for _, tt := range tests {
		if got := hostnameMatches(tt.pattern, tt.name); got != tt.want {
			t.Errorf("hostnameMatches(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}
