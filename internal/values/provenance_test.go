package values_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

const (
	patch  = gatewrightv1alpha1.StrategyPatch
	merge  = gatewrightv1alpha1.StrategyMerge
	atomic = gatewrightv1alpha1.StrategyAtomic
)

func TestProvenance(t *testing.T) {
	res := mustCompute(t,
		policyAt(values.LevelBlueprint, "bp", `{replicas: 1, image: envoy, labels: {"app.kubernetes.io/name": proxy}, waf: {enabled: true}}`, "")+"---\n"+
			policyAt(values.LevelGlobalClass, "global", "", "{service: {type: LoadBalancer}}")+"---\n"+
			policyAt(values.LevelGateway, "web", "{replicas: 3, ports: [80, 443], waf: null}", ""),
		"")
	blueprint := values.Source{Kind: "GatewayClassBlueprint", Name: "bp"}
	global := values.Source{Kind: "GatewayClassConfig", Namespace: controllerNamespace, Name: "global"}
	web := values.Source{Kind: "GatewayConfig", Namespace: "team-a", Name: "web"}
	want := []values.Leaf{
		{Path: "image", Value: "envoy", Origin: values.Origin{Source: blueprint, As: values.Default, Level: 1, Strategy: patch}},
		{Path: `labels["app.kubernetes.io/name"]`, Value: "proxy", Origin: values.Origin{Source: blueprint, As: values.Default, Level: 1, Strategy: patch}},
		{Path: "ports", Value: []any{int64(80), int64(443)}, Origin: values.Origin{Source: web, As: values.Default, Level: 6, Strategy: patch}},
		{Path: "replicas", Value: int64(3), Origin: values.Origin{Source: web, As: values.Default, Level: 6, Strategy: patch}},
		{Path: "service.type", Value: "LoadBalancer", Origin: values.Origin{Source: global, As: values.Override, Level: 2, Strategy: patch}},
		{Path: "waf", Unset: true, Origin: values.Origin{Source: web, As: values.Default, Level: 6, Strategy: patch}},
	}
	if diff := cmp.Diff(want, res.Provenance); diff != "" {
		t.Errorf("provenance (-want +got):\n%s", diff)
	}
}

func TestPolicyReports(t *testing.T) {
	res := mustCompute(t,
		policyAt(values.LevelGlobalClass, "global", "{replicas: 2}", "{service: {type: LoadBalancer}, tags: {provider: acme}}")+"---\n"+
			policyAt(values.LevelProviderClass, "tenant", "", "{tags: {provider: other}}")+"---\n"+
			policyAt(values.LevelGateway, "web", "{replicas: 3, service: {type: ClusterIP}, image: mine}", "{tags: {provider: mine}}"),
		"")
	global := values.Source{Kind: "GatewayClassConfig", Namespace: controllerNamespace, Name: "global"}
	web := values.Source{Kind: "GatewayConfig", Namespace: "team-a", Name: "web"}

	states := map[string]values.State{}
	var webReport values.PolicyReport
	for _, r := range res.Policies {
		states[r.Source.Name] = r.State()
		if r.Source == web {
			webReport = r
		}
	}
	// global: its replicas default lost to web, its overrides held.
	// tenant: its only value lost to global's override.
	// web: image took effect; service.type and tags.provider lost to global.
	wantStates := map[string]values.State{
		"bp":     values.Enforced,
		"global": values.PartiallyEnforced,
		"tenant": values.Overridden,
		"web":    values.PartiallyEnforced,
	}
	if diff := cmp.Diff(wantStates, states); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	wantOverridden := []values.OverriddenLeaf{
		{Path: "service.type", As: values.Default, By: values.Origin{Source: global, As: values.Override, Level: 2, Strategy: patch}, Strategy: patch},
		{Path: "tags.provider", As: values.Override, By: values.Origin{Source: global, As: values.Override, Level: 2, Strategy: patch}, Strategy: patch},
	}
	if diff := cmp.Diff(wantOverridden, webReport.Overridden); diff != "" {
		t.Errorf("web overridden (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]values.Source{global}, webReport.OverriddenBy()); diff != "" {
		t.Errorf("web overridden by (-want +got):\n%s", diff)
	}
}

func TestPolicyOverriddenByItsOwnOverrideNamesNoOtherPolicy(t *testing.T) {
	res := mustCompute(t, policyAt(values.LevelGateway, "web", "{key: default}", "{key: override}"), "")
	for _, r := range res.Policies {
		if r.Source.Name == "web" {
			if r.State() != values.PartiallyEnforced || len(r.OverriddenBy()) != 0 {
				t.Errorf("state %s overridden by %v, want PartiallyEnforced by nobody else", r.State(), r.OverriddenBy())
			}
		}
	}
}
