package blueprints_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/translate"
)

// ordinaryRoutes are n HTTPRoutes of ten namespaces on team-a/web, each with a hostname,
// one rule matching a path and a header, and a backend Service that exists.
func ordinaryRoutes(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r%d, namespace: team-%d}
spec:
  parentRefs: [{name: web, namespace: team-a, sectionName: http}]
  hostnames: [app%d.example.com]
  rules:
  - matches: [{path: {value: /api}, headers: [{name: x-version, value: v1}]}]
    backendRefs: [{name: svc%d, port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: svc%d, namespace: team-%d}
spec: {ports: [{port: 8080}]}
`, i, i%10, i, i, i, i%10)
	}
	return b.String()
}

// wideRoute is an HTTPRoute of 128 matches, the most the API allows.
func wideRoute() string {
	var matches []string
	for i := range 128 {
		matches = append(matches, fmt.Sprintf("{path: {value: /m%d}, headers: [{name: x-a, value: b}]}", i))
	}
	return `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: wide, namespace: team-w}
spec:
  parentRefs: [{name: web, namespace: team-a, sectionName: http}]
  rules: [{matches: [` + strings.Join(matches, ", ") + `], backendRefs: [{name: wide, port: 8080}]}]
---
apiVersion: v1
kind: Service
metadata: {name: wide, namespace: team-w}
spec: {ports: [{port: 8080}]}
`
}

// TestEnvoyBlueprintServesTheLargestOrdinaryGateway renders the shipped blueprint for a
// Gateway with 5,000 ordinary routes and one of 128 matches, under the default bounds:
// Envoy would load the configuration, and every match of every route is in it.
func TestEnvoyBlueprintServesTheLargestOrdinaryGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 5,000 routes")
	}
	set := load(t, filepath.Join("envoy-proxy", "blueprint.yaml"), filepath.Join("envoy-proxy", "testdata", "example.in.yaml"))
	if err := set.Add([]byte(ordinaryRoutes(5000) + wideRoute())); err != nil {
		t.Fatal(err)
	}
	routes := bootstrapRoutes(t, webSnapshot(t, set).Translate(&render.Cache{}, translate.Live{}))
	for i := range 5000 {
		name := fmt.Sprintf("team-%d/r%d/rule/0/match/0", i%10, i)
		if got := routes[name].GetRoute().GetCluster(); got != fmt.Sprintf("team-%d_svc%d_8080", i%10, i) {
			t.Fatalf("route %s goes to cluster %q", name, got)
		}
	}
	for i := range 128 {
		if name := fmt.Sprintf("team-w/wide/rule/0/match/%d", i); routes[name].GetRoute().GetCluster() != "team-w_wide_8080" {
			t.Fatalf("route %s is not served: %v", name, routes[name])
		}
	}
}
