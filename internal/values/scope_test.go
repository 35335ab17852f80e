package values_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gatewright/gatewright/internal/values"
)

func TestScopeIsolation(t *testing.T) {
	tests := []struct {
		name    string
		objects string
		route   string
	}{
		{
			name: "another tenant's GatewayConfig naming a Gateway of the same name does not apply",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: sneaky, namespace: team-b}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  override: {leaked: true}
`,
		},
		{
			name: "another tenant's namespace-wide GatewayConfig does not apply",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: ns, namespace: team-b}
spec:
  targetRefs: [{group: "", kind: Namespace, name: team-b}]
  default: {leaked: true}
`,
		},
		{
			name: "a GatewayConfig targeting another namespace does not apply there",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: ns, namespace: team-b}
spec:
  targetRefs: [{group: "", kind: Namespace, name: team-a}]
  default: {leaked: true}
`,
		},
		{
			name: "a GatewayClassConfig targeting another namespace does not apply there",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: ns, namespace: team-b}
spec:
  targetRefs: [{group: "", kind: Namespace, name: team-a}]
  override: {leaked: true}
`,
		},
		{
			name: "a GatewayClassConfig for the class in another tenant's namespace does not apply",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: class, namespace: team-b}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}]
  override: {leaked: true}
`,
		},
		{
			name: "a global config of another class on the same blueprint does not apply",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: internal, namespace: gatewright-system}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: internal}]
  override: {leaked: true}
`,
		},
		{
			name: "a global config that targets the controller namespace applies only to Gateways there",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: system, namespace: gatewright-system}
spec:
  targetRefs: [{group: "", kind: Namespace, name: gatewright-system}]
  override: {leaked: true}
`,
		},
		{
			name: "a GatewayConfig for another Gateway in the namespace does not apply",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: other, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: other}]
  default: {leaked: true}
`,
		},
		{
			name: "a GatewayConfig for an HTTPRoute does not apply to the Gateway",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: route, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: local}]
  default: {leaked: true}
`,
		},
		{
			name: "a target of a kind the chain does not know is ignored",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: odd, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GRPCRoute, name: web}]
  default: {leaked: true}
`,
		},
		{
			name:  "a GatewayConfig for another route does not apply to a route",
			route: "team-b/shop",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: route, namespace: team-b}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]
  default: {leaked: true}
`,
		},
		{
			name:  "a GatewayConfig in the Gateway's namespace for a route of that name elsewhere does not apply",
			route: "team-b/shop",
			objects: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: route, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  default: {leaked: true}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustCompute(t, tt.objects, tt.route)
			equalYAML(t, res.Values, "{}")
			if len(res.Policies) != 1 { // the blueprint alone
				t.Errorf("policies taking part: %+v, want the blueprint alone", res.Policies)
			}
		})
	}
}

func TestControllerNamespaceCountsOnce(t *testing.T) {
	// A Gateway in the controller namespace: the global config for its class is level 2
	// and not level 4 as well, so a level-3 override still beats it.
	objects := `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: gatewright-system}
spec:
  gatewayClassName: internet
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: global, namespace: gatewright-system}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}]
  override: {key: global}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: ns, namespace: gatewright-system}
spec:
  targetRefs: [{group: "", kind: Namespace, name: gatewright-system}]
  default: {key: namespace}
`
	set := load(t, objects)
	gw, err := set.Gateway(controllerNamespace, "web")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := set.ForValues(controllerNamespace, gw, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := snap.Values.ForGateway(gw)
	if err != nil {
		t.Fatal(err)
	}
	equalYAML(t, res.Values, "key: global")
	for _, report := range res.Policies {
		want := map[string][]values.Level{"bp": {1}, "global": {2}, "ns": {3}}[report.Source.Name]
		if !slices.Equal(report.Levels, want) {
			t.Errorf("%s applied at levels %v, want %v", report.Source, report.Levels, want)
		}
	}
}

func TestParametersRef(t *testing.T) {
	gatewayWithRef := func(group, kind, name string) string {
		return `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: internet
  infrastructure:
    parametersRef: {group: ` + group + `, kind: ` + kind + `, name: ` + name + `}
  listeners: [{name: http, protocol: HTTP, port: 80}]
`
	}
	byReference := `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web-params, namespace: team-a}
spec:
  default: {replicas: 4}
`
	// The fixture's Gateway team-a/web is replaced by the one with the reference.
	compute := func(t *testing.T, objects string) (*values.Result, error) {
		set := load(t, objects)
		set.Gateways = set.Gateways[1:]
		gw, err := set.Gateway("team-a", "web")
		if err != nil {
			t.Fatal(err)
		}
		snap, err := set.ForValues(controllerNamespace, gw, nil)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Values.ForGateway(gw)
	}

	t.Run("a GatewayConfig named by parametersRef counts as one targeting the Gateway", func(t *testing.T) {
		res, err := compute(t, gatewayWithRef("gatewright.dev", "GatewayConfig", "web-params")+"---\n"+byReference+"---\n"+
			policyAt(values.LevelTenantNamespace, "ns", "{replicas: 2}", ""))
		if err != nil {
			t.Fatal(err)
		}
		equalYAML(t, res.Values, "replicas: 4")
		if origin := originOf(t, res, "replicas").Origin; origin.Name != "web-params" || origin.Level != values.LevelGateway {
			t.Errorf("replicas set by %v, want web-params at level 6", origin)
		}
	})
	t.Run("a parametersRef to a missing GatewayConfig is an error", func(t *testing.T) {
		_, err := compute(t, gatewayWithRef("gatewright.dev", "GatewayConfig", "missing"))
		var refErr *values.ParametersRefError
		if !errors.As(err, &refErr) || err.Error() != "Gateway team-a/web: spec.infrastructure.parametersRef GatewayConfig missing: not found in namespace team-a" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a parametersRef to another kind is an error", func(t *testing.T) {
		_, err := compute(t, gatewayWithRef(`""`, "ConfigMap", "web-params")+"---\n"+byReference)
		var refErr *values.ParametersRefError
		if !errors.As(err, &refErr) {
			t.Fatalf("got %v, want a ParametersRefError", err)
		}
	})
}

func TestRouteChain(t *testing.T) {
	t.Run("a route in another namespace gets levels 7 and 8 on top of the Gateway's chain", func(t *testing.T) {
		res := mustCompute(t,
			policyAt(values.LevelGateway, "web", "{a: gateway, b: gateway, c: gateway}", "")+"---\n"+
				policyAt(values.LevelRouteNamespace, "team-b", "{b: namespace, c: namespace}", "")+"---\n"+
				policyAt(values.LevelRoute, "shop", "{c: route}", ""),
			"team-b/shop")
		equalYAML(t, res.Values, "{a: gateway, b: namespace, c: route}")
	})
	t.Run("the Gateway owner's override binds the route", func(t *testing.T) {
		res := mustCompute(t,
			policyAt(values.LevelGateway, "web", "", "{tls: {minVersion: '1.3'}}")+"---\n"+
				policyAt(values.LevelRoute, "shop", "{tls: {minVersion: '1.0', ciphers: [a]}}", "{tls: {minVersion: '1.1'}}"),
			"team-b/shop")
		equalYAML(t, res.Values, "tls: {minVersion: '1.3', ciphers: [a]}")
	})
	t.Run("a tenant cannot escape its provider's override by attaching to another tenant's Gateway", func(t *testing.T) {
		res := mustCompute(t,
			policyAt(values.LevelRouteProviderClass, "team-b-class", "", "{waf: {mode: block}}")+"---\n"+
				policyAt(values.LevelGateway, "web", "{waf: {mode: off}}", "{waf: {rules: owasp}}")+"---\n"+
				policyAt(values.LevelRoute, "shop", "", "{waf: {mode: off}}"),
			"team-b/shop")
		equalYAML(t, res.Values, "waf: {mode: block, rules: owasp}")
		if origin := originOf(t, res, "waf.mode").Origin; origin.Name != "team-b-class" || origin.Level != values.LevelRouteProviderClass {
			t.Errorf("waf.mode set by %v, want the route's provider at level 10", origin)
		}
	})
	t.Run("the route's provider ranks below the Gateway's provider and above every tenant", func(t *testing.T) {
		res := mustCompute(t,
			policyAt(values.LevelProviderClass, "team-a-class", "{tier: a-default}", "{quota: a-override}")+"---\n"+
				policyAt(values.LevelRouteProviderNamespace, "team-b-ns", "{tier: b-default, size: b-default}", "{quota: b-override, limit: b-override}")+"---\n"+
				policyAt(values.LevelTenantNamespace, "team-a-tenant", "{size: tenant}", "{limit: tenant}"),
			"team-b/shop")
		equalYAML(t, res.Values, "{tier: b-default, size: tenant, quota: a-override, limit: b-override}")
		levels := map[string][]values.Level{}
		for _, report := range res.Policies {
			levels[report.Source.Name] = report.Levels
		}
		if diff := cmp.Diff(map[string][]values.Level{"bp": {1}, "team-a-class": {4}, "team-b-ns": {9}, "team-a-tenant": {5}}, levels); diff != "" {
			t.Errorf("levels (-want +got):\n%s", diff)
		}
	})
	t.Run("the provider configs of the route's namespace do not reach a Gateway there", func(t *testing.T) {
		res := mustCompute(t, policyAt(values.LevelRouteProviderClass, "team-b-class", "", "{leaked: true}"), "")
		equalYAML(t, res.Values, "{}")
	})
	t.Run("a route in the Gateway's namespace takes its provider configs at levels 3 and 4 only", func(t *testing.T) {
		res := mustCompute(t,
			policyAt(values.LevelProviderNamespace, "ns", "", "{key: namespace}")+"---\n"+
				policyAt(values.LevelProviderClass, "class", "", "{other: class}"),
			"team-a/local")
		equalYAML(t, res.Values, "{key: namespace, other: class}")
		for _, report := range res.Policies {
			if len(report.Levels) != 1 || report.Levels[0] == values.LevelRouteProviderNamespace || report.Levels[0] == values.LevelRouteProviderClass {
				t.Errorf("%s applied at levels %v", report.Source, report.Levels)
			}
		}
	})
	t.Run("a route in the Gateway's namespace takes the namespace config at level 5 only", func(t *testing.T) {
		res := mustCompute(t,
			policyAt(values.LevelTenantNamespace, "ns", "{key: namespace}", "")+"---\n"+
				policyAt(values.LevelGateway, "web", "{key: gateway}", "")+"---\n"+`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: local, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: local}]
  default: {route: local}
`, "team-a/local")
		equalYAML(t, res.Values, "{key: gateway, route: local}")
		for _, report := range res.Policies {
			if report.Source.Name == "ns" && !slices.Equal(report.Levels, []values.Level{values.LevelTenantNamespace}) {
				t.Errorf("namespace config applied at levels %v, want [5]", report.Levels)
			}
		}
	})
}
