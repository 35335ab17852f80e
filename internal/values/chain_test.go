package values_test

import (
	"fmt"
	"testing"

	"github.com/gatewright/gatewright/internal/values"
)

// policyAt writes an object that contributes the given default and override (YAML
// flow objects, "" for none) at one level of the chain for Gateway team-a/web, or for
// the HTTPRoute team-b/shop at levels 7 to 10.
func policyAt(level values.Level, name, def, override string) string {
	spec := ""
	if def != "" {
		spec += "\n  default: " + def
	}
	if override != "" {
		spec += "\n  override: " + override
	}
	policy := func(kind, namespace, target string) string {
		return fmt.Sprintf("apiVersion: gatewright.dev/v1alpha1\nkind: %s\nmetadata: {name: %s, namespace: %s}\nspec:\n  targetRefs: [%s]%s\n",
			kind, name, namespace, target, spec)
	}
	switch level {
	case values.LevelBlueprint:
		return fmt.Sprintf("apiVersion: gatewright.dev/v1alpha1\nkind: GatewayClassBlueprint\nmetadata: {name: bp}\nspec:\n  gatewayTemplate: {}\n  values:%s\n",
			indent(spec))
	case values.LevelGlobalClass:
		return policy("GatewayClassConfig", controllerNamespace, "{group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}")
	case values.LevelProviderNamespace:
		return policy("GatewayClassConfig", "team-a", `{group: "", kind: Namespace, name: team-a}`)
	case values.LevelProviderClass:
		return policy("GatewayClassConfig", "team-a", "{group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}")
	case values.LevelTenantNamespace:
		return policy("GatewayConfig", "team-a", `{group: "", kind: Namespace, name: team-a}`)
	case values.LevelGateway:
		return policy("GatewayConfig", "team-a", "{group: gateway.networking.k8s.io, kind: Gateway, name: web}")
	case values.LevelRouteProviderNamespace:
		return policy("GatewayClassConfig", "team-b", `{group: "", kind: Namespace, name: team-b}`)
	case values.LevelRouteProviderClass:
		return policy("GatewayClassConfig", "team-b", "{group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}")
	case values.LevelRouteNamespace:
		return policy("GatewayConfig", "team-b", `{group: "", kind: Namespace, name: team-b}`)
	case values.LevelRoute:
		return policy("GatewayConfig", "team-b", "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}")
	}
	panic(level)
}

func indent(s string) string {
	out := ""
	for _, r := range s {
		out += string(r)
		if r == '\n' {
			out += "  "
		}
	}
	return out
}

// allLevels lists the levels in chain order, from the least specific.
var allLevels = []values.Level{1, 2, 3, 4, 9, 10, 5, 6, 7, 8}

// routeLevel tells whether only routes have level l.
func routeLevel(l values.Level) bool {
	switch l {
	case values.LevelRouteProviderNamespace, values.LevelRouteProviderClass, values.LevelRouteNamespace, values.LevelRoute:
		return true
	}
	return false
}

// routeFor returns the route to compute for when a case involves route levels.
func routeFor(levels ...values.Level) string {
	for _, l := range levels {
		if routeLevel(l) {
			return "team-b/shop"
		}
	}
	return ""
}

func TestLevelRanks(t *testing.T) {
	for i, level := range allLevels {
		if level.Rank() != i+1 {
			t.Errorf("level %d ranks %d, want %d", level, level.Rank(), i+1)
		}
		for _, more := range allLevels[i+1:] {
			if !level.Above(more) || more.Above(level) {
				t.Errorf("level %d should be above level %d and not the other way", level, more)
			}
		}
	}
	if values.Level(11).Rank() != 0 {
		t.Error("a level that does not exist has a rank")
	}
}

func TestEachLevelAloneSetsValues(t *testing.T) {
	for _, level := range allLevels {
		for _, half := range []values.Half{values.Default, values.Override} {
			t.Run(fmt.Sprintf("a %s at level %d reaches the values", half, level), func(t *testing.T) {
				def, override := "{key: set}", ""
				if half == values.Override {
					def, override = "", "{key: set}"
				}
				res := mustCompute(t, policyAt(level, "p", def, override), routeFor(level))
				equalYAML(t, res.Values, "key: set")
				leaf := originOf(t, res, "key")
				if leaf.Origin.Level != level || leaf.Origin.As != half {
					t.Errorf("origin %v, want level %d %s", leaf.Origin, level, half)
				}
			})
		}
	}
}

func TestEveryPairOfLevels(t *testing.T) {
	for i, low := range allLevels {
		for _, high := range allLevels[i+1:] {
			route := routeFor(low, high)
			objects := func(lowDef, lowOver, highDef, highOver string) string {
				return policyAt(low, "low", lowDef, lowOver) + "---\n" + policyAt(high, "high", highDef, highOver)
			}
			t.Run(fmt.Sprintf("a default at level %d beats a default at level %d", high, low), func(t *testing.T) {
				res := mustCompute(t, objects("{key: low, onlyLow: 1}", "", "{key: high}", ""), route)
				equalYAML(t, res.Values, "{key: high, onlyLow: 1}")
			})
			t.Run(fmt.Sprintf("an override at level %d beats an override at level %d", low, high), func(t *testing.T) {
				res := mustCompute(t, objects("", "{key: low}", "", "{key: high, onlyHigh: 1}"), route)
				equalYAML(t, res.Values, "{key: low, onlyHigh: 1}")
			})
			t.Run(fmt.Sprintf("an override at level %d beats a default at level %d", low, high), func(t *testing.T) {
				res := mustCompute(t, objects("", "{key: low}", "{key: high}", ""), route)
				equalYAML(t, res.Values, "{key: low}")
			})
			t.Run(fmt.Sprintf("an override at level %d beats a default at level %d", high, low), func(t *testing.T) {
				res := mustCompute(t, objects("{key: low}", "", "", "{key: high}"), route)
				equalYAML(t, res.Values, "{key: high}")
			})
		}
	}
}

func TestBlueprintOverrideBeatsEverything(t *testing.T) {
	objects := policyAt(values.LevelBlueprint, "bp", "{replicas: 1}", "{replicas: 2}")
	for _, level := range allLevels[1:] {
		objects += "---\n" + policyAt(level, fmt.Sprintf("p%d", level), "{replicas: 10}", "{replicas: 20}")
	}
	res := mustCompute(t, objects, "team-b/shop")
	equalYAML(t, res.Values, "replicas: 2")
	if origin := originOf(t, res, "replicas").Origin; origin.Kind != "GatewayClassBlueprint" || origin.As != values.Override {
		t.Errorf("replicas set by %v, want the blueprint's override", origin)
	}
}
