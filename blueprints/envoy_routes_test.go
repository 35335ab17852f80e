package blueprints_test

import (
	"path/filepath"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/translate"
)

// TestEnvoyBlueprintContainsARouteEnvoyWouldRefuse attaches to team-a's Gateway a route of
// team-b that Envoy would refuse to load. The route's own render fails, naming the problem
// (its status says Accepted=False and why); the Gateway's render succeeds, into a
// configuration Envoy loads, where the bad rule answers 500 on the matches Envoy can
// evaluate, leaves out those it cannot, and every other rule and route is as before.
func TestEnvoyBlueprintContainsARouteEnvoyWouldRefuse(t *testing.T) {
	tests := []struct {
		name     string
		rule     string   // rule 0 of HTTPRoute team-b/bad
		want     string   // in the route's render error
		answer   []string // match names of rule 0 that answer 500
		leaveOut []string // match names of rule 0 not in the configuration
	}{
		{
			name:   "a rule that sets the Host header answers 500",
			rule:   `{matches: [{path: {value: /bad}}], filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: Host, value: shop.internal}]}}], backendRefs: [{name: shop-web, port: 80}]}`,
			want:   "HTTPRoute team-b/bad rule 0: RequestHeaderModifier: Envoy cannot set the Host header (a URLRewrite hostname rewrites it)",
			answer: []string{"team-b/bad/rule/0/match/0"},
		},
		{
			name:   "a rule that removes the Host header answers 500",
			rule:   `{matches: [{path: {value: /bad}}], filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [host]}}], backendRefs: [{name: shop-web, port: 80}]}`,
			want:   "HTTPRoute team-b/bad rule 0: RequestHeaderModifier: Envoy cannot remove the Host header",
			answer: []string{"team-b/bad/rule/0/match/0"},
		},
		{
			name:   "a rule adding a response header value with a line break answers 500",
			rule:   `{matches: [{path: {value: /bad}}], filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: X-Note, value: "a\nb"}]}}], backendRefs: [{name: shop-web, port: 80}]}`,
			want:   `HTTPRoute team-b/bad rule 0: ResponseHeaderModifier: the value of header "X-Note" has a line break or NUL`,
			answer: []string{"team-b/bad/rule/0/match/0"},
		},
		{
			name:     "a path regular expression that is not RE2 matches nothing and its rule answers 500",
			rule:     `{matches: [{path: {type: RegularExpression, value: "/v[0-9"}}, {path: {type: Exact, value: /bad}}], backendRefs: [{name: shop-web, port: 80}]}`,
			want:     `HTTPRoute team-b/bad rule 0 match 0: path: regular expression "/v[0-9" is not RE2 syntax`,
			answer:   []string{"team-b/bad/rule/0/match/1"},
			leaveOut: []string{"team-b/bad/rule/0/match/0"},
		},
		{
			name:     "a header regular expression that is not RE2 matches nothing and its rule answers 500",
			rule:     `{matches: [{path: {value: /bad}}, {headers: [{name: X-Id, type: RegularExpression, value: "(a"}]}], backendRefs: [{name: shop-web, port: 80}]}`,
			want:     `HTTPRoute team-b/bad rule 0 match 1: header "X-Id": regular expression "(a" is not RE2 syntax`,
			answer:   []string{"team-b/bad/rule/0/match/0"},
			leaveOut: []string{"team-b/bad/rule/0/match/1"},
		},
		{
			name:     "a path match type the blueprint does not translate matches nothing and its rule answers 500",
			rule:     `{matches: [{path: {type: Suffix, value: /x}}, {path: {value: /bad}}], backendRefs: [{name: shop-web, port: 80}]}`,
			want:     `HTTPRoute team-b/bad rule 0 match 0: path match type "Suffix" is not supported (Exact, PathPrefix, RegularExpression)`,
			answer:   []string{"team-b/bad/rule/0/match/1"},
			leaveOut: []string{"team-b/bad/rule/0/match/0"},
		},
		{
			name:     "a query match type the blueprint does not translate matches nothing and its rule answers 500",
			rule:     `{matches: [{queryParams: [{name: lang, type: Prefix, value: e}]}, {path: {value: /bad}}], backendRefs: [{name: shop-web, port: 80}]}`,
			want:     `HTTPRoute team-b/bad rule 0 match 0: query parameter "lang": match type "Prefix" is not supported (Exact, RegularExpression)`,
			answer:   []string{"team-b/bad/rule/0/match/1"},
			leaveOut: []string{"team-b/bad/rule/0/match/0"},
		},
	}
	exampleSet := load(t, filepath.Join("envoy-proxy", "blueprint.yaml"), filepath.Join("envoy-proxy", "testdata", "example.in.yaml"))
	example := bootstrapRoutes(t, webSnapshot(t, exampleSet).Translate(&render.Cache{}, translate.Live{}))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := load(t, filepath.Join("envoy-proxy", "blueprint.yaml"), filepath.Join("envoy-proxy", "testdata", "example.in.yaml"))
			if err := set.Add([]byte(badRoute(tt.rule))); err != nil {
				t.Fatal(err)
			}
			snap := webSnapshot(t, set)
			route := translateRoute(t, set, snap, "team-b/bad")
			if route.Err == nil || !strings.Contains(route.Err.Error(), tt.want) {
				t.Fatalf("the route's render: got %v, want an error containing %q", route.Err, tt.want)
			}
			routes := bootstrapRoutes(t, snap.Translate(&render.Cache{}, translate.Live{}))
			for _, name := range tt.answer {
				if got := routes[name].GetDirectResponse().GetStatus(); got != 500 {
					t.Errorf("route %s answers %d, want 500", name, got)
				}
			}
			for _, name := range tt.leaveOut {
				if routes[name] != nil {
					t.Errorf("route %s is in the configuration: %v", name, routes[name])
				}
			}
			if got := routes["team-b/bad/rule/1/match/0"].GetRoute().GetCluster(); got != "team-b_shop-web_80" {
				t.Errorf("the route's other rule goes to cluster %q, want team-b_shop-web_80", got)
			}
			for name, before := range example {
				if !proto.Equal(routes[name], before) {
					t.Errorf("route %s changed: %v, was %v", name, routes[name], before)
				}
			}
		})
	}
}

// webSnapshot is team-a/web's snapshot, from which its reconciler and the reconciler of
// each route on it render, each alone.
func webSnapshot(t *testing.T, set *offline.Set) *translate.Gateway {
	t.Helper()
	gw, err := set.Gateway("team-a", "web")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := set.Snapshot(controllerNamespace, gw)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func translateRoute(t *testing.T, set *offline.Set, snap *translate.Gateway, name string) *translate.Result {
	t.Helper()
	routes, err := set.Routes(snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range routes {
		if r.Route.GetNamespace()+"/"+r.Route.GetName() == name {
			return snap.TranslateRoute(&render.Cache{}, r, translate.Live{})
		}
	}
	t.Fatalf("no route %s on Gateway team-a/web", name)
	return nil
}

// bootstrapRoutes checks the envoy.yaml of a Gateway's render as Envoy would load it, and
// returns its routes by name.
func bootstrapRoutes(t *testing.T, gateway *translate.Result) map[string]*routev3.Route {
	t.Helper()
	if gateway.Err != nil {
		t.Fatalf("the Gateway's render failed: %v", gateway.Err)
	}
	for _, obj := range gateway.Output.Objects {
		if obj.GetKind() != "ConfigMap" {
			continue
		}
		text := obj.Object["data"].(map[string]any)["envoy.yaml"].(string)
		if _, err := checkEnvoyBootstrap(text); err != nil {
			t.Fatalf("Envoy would not load the Gateway's configuration: %v", err)
		}
		routes, err := envoyRoutes(text)
		if err != nil {
			t.Fatal(err)
		}
		return routes
	}
	t.Fatal("the Gateway's render has no ConfigMap")
	return nil
}

// badRoute is an HTTPRoute of team-b on team-a's Gateway, with rule as its rule 0 and a
// rule 1 Envoy can serve, and the Service both send to.
func badRoute(rule string) string {
	return `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bad, namespace: team-b}
spec:
  parentRefs: [{name: web, namespace: team-a, sectionName: http}]
  rules:
  - ` + rule + `
  - {matches: [{path: {value: /good}}], backendRefs: [{name: shop-web, port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: shop-web, namespace: team-b}
spec:
  ports: [{port: 80}]`
}
