package values_test

import (
	"testing"

	"github.com/gatewright/gatewright/internal/values"
)

// Cases from GEP-713 (defaults and overrides) and from Kuadrant's defaults/overrides
// semantics, mapped onto Gatewright's chain: the Gateway owner's GatewayConfig (level 6)
// plays the Gateway-level policy, and the route's GatewayConfig (level 8) the
// HTTPRoute-level one.
func TestMergeSemantics(t *testing.T) {
	tests := []struct {
		name    string
		objects string
		route   string
		want    string
	}{
		{
			name: "GEP-713 CDN caching: the Gateway override of enabled holds, cache defaults merge per field",
			objects: policyAt(values.LevelGateway, "gateway-cdn",
				"{cdn: {cachePolicy: {includeHost: true, includeProtocol: true, includeQueryString: true}}}",
				"{cdn: {enabled: true}}") + "---\n" +
				policyAt(values.LevelRoute, "route-cdn",
					"{cdn: {enabled: false, cachePolicy: {includeQueryString: false}}}", ""),
			route: "team-b/shop",
			want:  "cdn: {enabled: true, cachePolicy: {includeHost: true, includeProtocol: true, includeQueryString: false}}",
		},
		{
			name: "GEP-713 merge table: a more specific default replaces a string and a list and merges a map",
			objects: policyAt(values.LevelGlobalClass, "general", `{string: a, list: [1, 2], map: {a: 1, shared: general}}`, "") + "---\n" +
				policyAt(values.LevelGateway, "specific", `{string: b, list: [3], map: {b: 2, shared: specific}}`, ""),
			want: "{string: b, list: [3], map: {a: 1, b: 2, shared: specific}}",
		},
		{
			name: "GEP-713 merge table: a less specific override replaces a string and a list and merges a map",
			objects: policyAt(values.LevelGlobalClass, "general", "", `{string: a, list: [1, 2], map: {a: 1, shared: general}}`) + "---\n" +
				policyAt(values.LevelGateway, "specific", "", `{string: b, list: [3], map: {b: 2, shared: specific}}`),
			want: "{string: a, list: [1, 2], map: {a: 1, b: 2, shared: general}}",
		},
		{
			name: "Kuadrant merged defaults: every level contributes the keys nobody more specific set",
			objects: policyAt(values.LevelBlueprint, "bp", "{limits: {rps: 10, burst: 5}, tls: true}", "") + "---\n" +
				policyAt(values.LevelProviderNamespace, "tenant", "{limits: {rps: 50}}", "") + "---\n" +
				policyAt(values.LevelGateway, "web", "{limits: {burst: 20}}", ""),
			want: "{limits: {rps: 50, burst: 20}, tls: true}",
		},
		{
			name: "Kuadrant merged overrides: each override binds its keys, less specific wins a shared key",
			objects: policyAt(values.LevelGlobalClass, "global", "", "{limits: {rps: 100}}") + "---\n" +
				policyAt(values.LevelProviderClass, "tenant", "", "{limits: {rps: 500, burst: 10}}") + "---\n" +
				policyAt(values.LevelGateway, "web", "{limits: {rps: 1000, burst: 1000, window: 1s}}", ""),
			want: "limits: {rps: 100, burst: 10, window: 1s}",
		},
		{
			name: "a tenant unsets an inherited default with null",
			objects: policyAt(values.LevelGlobalClass, "global", "{tags: {team: none, tier: gold}, waf: {enabled: true}}", "") + "---\n" +
				policyAt(values.LevelGateway, "web", "{tags: {team: null}, waf: null}", ""),
			want: "tags: {tier: gold}",
		},
		{
			name: "a tenant cannot unset an override, neither with a default nor with an override",
			objects: policyAt(values.LevelGlobalClass, "global", "", "{tags: {provider: acme}, waf: {enabled: true}}") + "---\n" +
				policyAt(values.LevelGateway, "web", "{tags: {provider: null}}", "{waf: null}"),
			want: "{tags: {provider: acme}, waf: {enabled: true}}",
		},
		{
			name: "an override with null removes a default for every level below it",
			objects: policyAt(values.LevelGlobalClass, "global", "", "{debug: null}") + "---\n" +
				policyAt(values.LevelGateway, "web", "{debug: true, replicas: 3}", ""),
			want: "replicas: 3",
		},
		{
			name: "an object replaces a scalar and a scalar replaces an object",
			objects: policyAt(values.LevelBlueprint, "bp", "{service: ClusterIP, ports: {http: 80}}", "") + "---\n" +
				policyAt(values.LevelGateway, "web", "{service: {type: LoadBalancer}, ports: none}", ""),
			want: "{service: {type: LoadBalancer}, ports: none}",
		},
		{
			name: "a provider override merges into a tenant's object and keeps the tenant's other keys",
			objects: policyAt(values.LevelGlobalClass, "global", "", "{labels: {provider: acme}}") + "---\n" +
				policyAt(values.LevelGateway, "web", "{labels: {app: shop, provider: tenant}}", ""),
			want: "labels: {app: shop, provider: acme}",
		},
		{
			name:    "an empty object stays an empty object",
			objects: policyAt(values.LevelGateway, "web", "{annotations: {}}", ""),
			want:    "annotations: {}",
		},
		{
			name:    "nothing set anywhere gives empty values",
			objects: "",
			want:    "{}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equalYAML(t, mustCompute(t, tt.objects, tt.route).Values, tt.want)
		})
	}
}

func TestSameLevelConflicts(t *testing.T) {
	config := func(name, created, def, override string) string {
		return "apiVersion: gatewright.dev/v1alpha1\nkind: GatewayConfig\nmetadata: {name: " + name +
			", namespace: team-a" + created + "}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]\n" +
			"  default: " + def + "\n  override: " + override + "\n---\n"
	}
	const older, newer = `, creationTimestamp: "2026-01-01T00:00:00Z"`, `, creationTimestamp: "2026-06-01T00:00:00Z"`
	tests := []struct {
		name    string
		objects string
		want    string
	}{
		{
			name:    "between two defaults at one level the newer wins a conflicting key, other keys merge",
			objects: config("a-new", newer, "{key: new}", "{}") + config("z-old", older, "{key: old, onlyOld: 1}", "{}"),
			want:    "{key: new, onlyOld: 1}",
		},
		{
			name:    "between two overrides at one level the older wins a conflicting key",
			objects: config("a-new", newer, "{}", "{key: new}") + config("z-old", older, "{}", "{key: old, onlyOld: 1}"),
			want:    "{key: old, onlyOld: 1}",
		},
		{
			name:    "on equal age the first by namespace/name is higher: its default loses",
			objects: config("beta", older, "{key: beta}", "{}") + config("alpha", older, "{key: alpha}", "{}"),
			want:    "key: beta",
		},
		{
			name:    "on equal age the first by namespace/name is higher: its override wins",
			objects: config("beta", older, "{}", "{key: beta}") + config("alpha", older, "{}", "{key: alpha}"),
			want:    "key: alpha",
		},
		{
			name:    "objects without a creationTimestamp count as equally old",
			objects: config("beta", "", "{}", "{key: beta}") + config("alpha", "", "{}", "{key: alpha}"),
			want:    "key: alpha",
		},
		{
			name:    "the newer default wins with a null too",
			objects: config("a-new", newer, "{key: null}", "{}") + config("z-old", older, "{key: old}", "{}"),
			want:    "{}",
		},
		{
			name:    "an older default's null does not unset a newer default at the same level",
			objects: config("a-new", newer, "{key: new}", "{}") + config("z-old", older, "{key: null}", "{}"),
			want:    "key: new",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equalYAML(t, mustCompute(t, tt.objects, "").Values, tt.want)
		})
	}
}
