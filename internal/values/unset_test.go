package values_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gatewright/gatewright/internal/values"
)

// forbidding is a blueprint whose defaults and overrides are given, and that forbids
// tenants to unset what a higher policy set.
func forbidding(def, override string) string {
	return "apiVersion: gatewright.dev/v1alpha1\nkind: GatewayClassBlueprint\nmetadata: {name: bp}\nspec:\n  gatewayTemplate: {}\n  tenantUnset: Forbidden\n" +
		"  values: {default: " + def + ", override: " + override + "}\n"
}

func TestTenantUnset(t *testing.T) {
	blueprint := values.Origin{Source: values.Source{Kind: "GatewayClassBlueprint", Name: "bp"}, As: values.Default, Level: values.LevelBlueprint, Strategy: patch}
	tests := []struct {
		name    string
		objects string
		want    string
		refused map[string][]values.RefusedUnset // by policy name
	}{
		{
			name:    "allowed by default: a tenant's null removes the blueprint's default",
			objects: policyAt(values.LevelBlueprint, "bp", "{image: envoy, debug: true}", "") + "---\n" + policyAt(values.LevelGateway, "web", "{debug: null}", ""),
			want:    "image: envoy",
		},
		{
			name:    "forbidden: a tenant's null in a default is ignored and reported",
			objects: forbidding("{image: envoy, debug: true}", "{}") + "---\n" + policyAt(values.LevelGateway, "web", "{debug: null, replicas: 3}", ""),
			want:    "{image: envoy, debug: true, replicas: 3}",
			refused: map[string][]values.RefusedUnset{"web": {{Path: "debug", As: values.Default, Value: true, SetBy: blueprint}}},
		},
		{
			name:    "forbidden: a tenant's null inside an object keeps the key, the object's other keys merge",
			objects: forbidding("{tags: {team: none, tier: gold}}", "{}") + "---\n" + policyAt(values.LevelGateway, "web", "{tags: {team: null, app: shop}}", ""),
			want:    "tags: {team: none, tier: gold, app: shop}",
			refused: map[string][]values.RefusedUnset{"web": {{Path: "tags.team", As: values.Default, Value: "none", SetBy: blueprint}}},
		},
		{
			name:    "forbidden: a provider may still unset a default",
			objects: forbidding("{image: envoy, debug: true}", "{}") + "---\n" + policyAt(values.LevelGlobalClass, "global", "{debug: null}", ""),
			want:    "image: envoy",
		},
		{
			name: "forbidden: a tenant's null in an override keeps an inherited default but removes a lower one",
			objects: forbidding("{debug: true}", "{}") + "---\n" + policyAt(values.LevelGateway, "web", "", "{debug: null, trace: null}") + "---\n" +
				policyAt(values.LevelRoute, "shop", "{trace: true, path: /}", ""),
			want:    "{debug: true, path: /}",
			refused: map[string][]values.RefusedUnset{"web": {{Path: "debug", As: values.Override, Value: true, SetBy: blueprint}}},
		},
		{
			name:    "forbidden: a tenant's Atomic override keeps the inherited defaults it does not set",
			objects: forbidding("{image: envoy, replicas: 1}", "{}") + "---\n" + policyAt(values.LevelGateway, "web", "", "{values: {replicas: 3}, strategy: Atomic}"),
			want:    "{image: envoy, replicas: 3}",
			refused: map[string][]values.RefusedUnset{"web": {{Path: "image", As: values.Override, Value: "envoy", SetBy: blueprint}}},
		},
		{
			name:    "forbidden: a tenant's Merge override keeps the inherited defaults under its keys",
			objects: forbidding("{resources: {cpu: 1, memory: 1Gi}}", "{}") + "---\n" + policyAt(values.LevelGateway, "web", "", "{values: {resources: {cpu: 2}}, strategy: Merge}"),
			want:    "resources: {cpu: 2, memory: 1Gi}",
			refused: map[string][]values.RefusedUnset{"web": {{Path: "resources.memory", As: values.Override, Value: "1Gi", SetBy: blueprint}}},
		},
		{
			name:    "forbidden: a tenant may still replace an inherited object with a value",
			objects: forbidding("{resources: {cpu: 1}}", "{}") + "---\n" + policyAt(values.LevelGateway, "web", "", "{resources: none}"),
			want:    "resources: none",
		},
		{
			name:    "forbidden: the route's tenant cannot unset the Gateway owner's default either",
			objects: forbidding("{}", "{}") + "---\n" + policyAt(values.LevelGateway, "web", "{timeout: 5s}", "") + "---\n" + policyAt(values.LevelRoute, "shop", "{timeout: null}", ""),
			want:    "timeout: 5s",
			refused: map[string][]values.RefusedUnset{"shop": {{Path: "timeout", As: values.Default, Value: "5s", SetBy: values.Origin{
				Source: values.Source{Kind: "GatewayConfig", Namespace: "team-a", Name: "web"}, As: values.Default, Level: values.LevelGateway, Strategy: patch}}}},
		},
		{
			name:    "forbidden: a tenant's Atomic default below a tenant's null still goes in whole",
			objects: forbidding("{}", "{}") + "---\n" + policyAt(values.LevelGateway, "web", "{values: {a: 1, b: 2}, strategy: Atomic}", "") + "---\n" + policyAt(values.LevelRoute, "shop", "{a: null}", ""),
			want:    "{a: 1, b: 2}",
			refused: map[string][]values.RefusedUnset{"shop": {{Path: "a", As: values.Default, Value: int64(1), SetBy: values.Origin{
				Source: values.Source{Kind: "GatewayConfig", Namespace: "team-a", Name: "web"}, As: values.Default, Level: values.LevelGateway, Strategy: atomic}}}},
		},
		{
			name:    "forbidden: nobody unsets an override, tenant or not",
			objects: forbidding("{}", "{waf: true}") + "---\n" + policyAt(values.LevelGlobalClass, "global", "", "{waf: null}"),
			want:    "waf: true",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustCompute(t, tt.objects, "team-b/shop")
			equalYAML(t, res.Values, tt.want)
			refused := map[string][]values.RefusedUnset{}
			for _, r := range res.Policies {
				if len(r.RefusedUnsets) > 0 {
					refused[r.Source.Name] = r.RefusedUnsets
				}
			}
			if tt.refused == nil {
				tt.refused = map[string][]values.RefusedUnset{}
			}
			if diff := cmp.Diff(tt.refused, refused); diff != "" {
				t.Errorf("refused unsets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestARefusedUnsetIsALossForTheTenant(t *testing.T) {
	res := mustCompute(t, forbidding("{debug: true}", "{}")+"---\n"+policyAt(values.LevelGateway, "web", "{debug: null, replicas: 3}", ""), "")
	for _, r := range res.Policies {
		if r.Source.Name == "web" && (r.State() != values.PartiallyEnforced || len(r.Overridden) != 1 || r.Overridden[0].Path != "debug") {
			t.Errorf("web: state %s, overridden %+v; want its null on debug lost", r.State(), r.Overridden)
		}
	}
}

// TestAtomicDefaultLessTheUnsetsBelow follows the Kuadrant RFC's merge of an atomic
// default B, here the provider's, over a more specific policy p, the tenant's: "Remove
// from B all policy rules listed in p.unset", then "p.empty?", and if so "p.rules ← B".
func TestAtomicDefaultLessTheUnsetsBelow(t *testing.T) {
	provider := values.Origin{Source: values.Source{Kind: "GatewayClassConfig", Namespace: controllerNamespace, Name: "provider"},
		As: values.Default, Level: values.LevelGlobalClass, Strategy: atomic}
	tenant := values.Origin{Source: values.Source{Kind: "GatewayConfig", Namespace: "team-a", Name: "web"}, As: values.Default, Level: values.LevelGateway, Strategy: patch}
	tests := []struct {
		name       string
		atomic     string
		tenant     string
		want       string
		overridden []values.OverriddenLeaf // of the provider
		kept       string                  // a path the provider set
	}{
		{
			name:   "a lower null removes its rule from the atomic default, and the rest of it applies",
			atomic: "{a: 1, b: 2}", tenant: "{a: null}", want: "b: 2", kept: "b",
			overridden: []values.OverriddenLeaf{{Path: "a", As: values.Default, By: tenant, Strategy: atomic}},
		},
		{
			name:   "a lower null of every rule leaves nothing of the atomic default",
			atomic: "{a: 1, b: 2}", tenant: "{a: null, b: null}", want: "{}",
			overridden: []values.OverriddenLeaf{{Path: "a", As: values.Default, By: tenant, Strategy: atomic}, {Path: "b", As: values.Default, By: tenant, Strategy: atomic}},
		},
		{
			name:   "a lower null of a rule the default does not have leaves the default whole",
			atomic: "{a: 1, b: 2}", tenant: "{z: null}", want: "{a: 1, b: 2}",
		},
		{
			name:   "a lower policy that also sets a rule is not empty: it takes none of the atomic default",
			atomic: "{a: 1, b: 2}", tenant: "{a: null, c: 3}", want: "c: 3",
			overridden: []values.OverriddenLeaf{{Path: "a", As: values.Default, By: tenant, Strategy: atomic}, {Path: "b", As: values.Default, By: tenant, Strategy: atomic}},
		},
		{
			name:   "a lower null inside a rule removes only that key of it",
			atomic: "{tls: {min: '1.2', ciphers: [x]}}", tenant: "{tls: {ciphers: null}}", want: "tls: {min: '1.2'}", kept: "tls.min",
			overridden: []values.OverriddenLeaf{{Path: "tls.ciphers", As: values.Default, By: tenant, Strategy: atomic}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustCompute(t, policyAt(values.LevelGlobalClass, "provider", "{values: "+tt.atomic+", strategy: Atomic}", "")+"---\n"+
				policyAt(values.LevelGateway, "web", tt.tenant, ""), "")
			equalYAML(t, res.Values, tt.want)
			r := reportOf(t, res, "provider")
			if diff := cmp.Diff(tt.overridden, r.Overridden); diff != "" {
				t.Errorf("the provider's losses (-want +got):\n%s", diff)
			}
			if tt.kept != "" && originOf(t, res, tt.kept).Origin != provider {
				t.Errorf("%s: %+v, want set by the provider's Atomic default", tt.kept, originOf(t, res, tt.kept))
			}
		})
	}
}
