package values_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/values"
)

const controllerNamespace = "gatewright-system"

// world is the fixture every case starts from: blueprint bp behind the classes internet
// and internal, Gateway team-a/web of class internet, and HTTPRoutes team-a/local and
// team-b/shop attached to it.
const world = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: internet}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: bp}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: internal}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: bp}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: internet
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: local, namespace: team-a}
spec:
  parentRefs: [{name: web}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: team-b}
spec:
  parentRefs: [{name: web, namespace: team-a}]
`

// emptyBlueprint is used when a case brings no blueprint of its own.
const emptyBlueprint = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:
  gatewayTemplate: {}
`

// load reads the fixture plus extra (which must hold the blueprint bp, or gets the
// empty one).
func load(t testing.TB, extra string) *offline.Set {
	t.Helper()
	docs := world + "\n---\n" + extra
	if !strings.Contains(extra, "kind: GatewayClassBlueprint") {
		docs += "\n---\n" + emptyBlueprint
	}
	set := &offline.Set{}
	if err := set.Add([]byte(docs)); err != nil {
		t.Fatal(err)
	}
	return set
}

// compute returns the values of Gateway team-a/web, or of the HTTPRoute route ("ns/name")
// on it.
func compute(t testing.TB, set *offline.Set, route string) (*values.Result, error) {
	t.Helper()
	gw, err := set.Gateway("team-a", "web")
	if err != nil {
		t.Fatal(err)
	}
	var r routes.Route // nil, not a nil *HTTPRoute, for the Gateway's own values
	if route != "" {
		ns, name, _ := strings.Cut(route, "/")
		if r, err = set.Route(routes.KindHTTPRoute, ns, name); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := set.ForValues(controllerNamespace, gw, r)
	if err != nil {
		t.Fatal(err)
	}
	if r != nil {
		return snap.Values.ForRoute(gw, r)
	}
	return snap.Values.ForGateway(gw)
}

// mustCompute is compute for cases that expect no error.
func mustCompute(t testing.TB, extra, route string) *values.Result {
	t.Helper()
	res, err := compute(t, load(t, extra), route)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// equalYAML fails unless got equals the object written in want.
func equalYAML(t testing.TB, got map[string]any, want string) {
	t.Helper()
	var expected map[string]any
	if err := yaml.Unmarshal([]byte(want), &expected); err != nil {
		t.Fatal(err)
	}
	if expected == nil {
		expected = map[string]any{}
	}
	// Compare through JSON types: the fixture YAML decodes numbers as float64.
	gotJSON, _ := yaml.Marshal(got)
	var normalized map[string]any
	if err := yaml.Unmarshal(gotJSON, &normalized); err != nil {
		t.Fatal(err)
	}
	if normalized == nil {
		normalized = map[string]any{}
	}
	if diff := cmp.Diff(expected, normalized); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
}

// originOf returns the provenance of the leaf at path.
func originOf(t testing.TB, res *values.Result, path string) values.Leaf {
	t.Helper()
	for _, leaf := range res.Provenance {
		if leaf.Path == path {
			return leaf
		}
	}
	t.Fatalf("no provenance for %s in %+v", path, res.Provenance)
	return values.Leaf{}
}
