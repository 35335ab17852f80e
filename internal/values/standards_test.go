package values_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gatewright/gatewright/internal/values"
)

// The worked examples of GEP-713 (Standard) and of Kuadrant's "Defaults & Overrides"
// RFC, as values tests; cmd/gatewright/testdata/values holds the same worlds as YAML for
// `gatewright values --provenance`.

// gepWorld has GEP-713's targets: Gateways g1 and g2 in namespace gep, routes r1 and r2
// on g1, r3 and r4 on g2. A policy targeting a Gateway is level 6, a route level 8.
const gepWorld = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1, namespace: gep}
spec: {gatewayClassName: internet, listeners: [{name: http, protocol: HTTP, port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g2, namespace: gep}
spec: {gatewayClassName: internet, listeners: [{name: http, protocol: HTTP, port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1, namespace: gep}
spec: {parentRefs: [{name: g1}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r2, namespace: gep}
spec: {parentRefs: [{name: g1}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r3, namespace: gep}
spec: {parentRefs: [{name: g2}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r4, namespace: gep}
spec: {parentRefs: [{name: g2}]}
`

// gepPolicy writes a GatewayConfig in namespace gep targeting a Gateway (g*) or a route
// (r*) with one half, written as YAML.
func gepPolicy(name, target, half, block string) string {
	kind := "HTTPRoute"
	if strings.HasPrefix(target, "g") {
		kind = "Gateway"
	}
	return "---\napiVersion: gatewright.dev/v1alpha1\nkind: GatewayConfig\nmetadata: {name: " + name + ", namespace: gep}\n" +
		"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + target + "}]\n  " + half + ": " + block + "\n"
}

// gepContexts are the Gateways and routes of gepWorld, each with its parent Gateway.
var gepContexts = map[string][2]string{"g1": {"g1", ""}, "g2": {"g2", ""}, "r1": {"g1", "r1"}, "r2": {"g1", "r2"}, "r3": {"g2", "r3"}, "r4": {"g2", "r4"}}

// computeGEP returns the result of every context of gepWorld with the policies.
func computeGEP(t *testing.T, policies string) map[string]*values.Result {
	t.Helper()
	set := load(t, gepWorld+policies)
	out := map[string]*values.Result{}
	for name, context := range gepContexts {
		gw, err := set.Gateway("gep", context[0])
		if err != nil {
			t.Fatal(err)
		}
		snap, err := set.ForValues(controllerNamespace, gw, nil)
		if err != nil {
			t.Fatal(err)
		}
		var res *values.Result
		if context[1] == "" {
			res, err = snap.Values.ForGateway(gw)
		} else {
			route, routeErr := set.HTTPRoute("gep", context[1])
			if routeErr != nil {
				t.Fatal(routeErr)
			}
			res, err = snap.Values.ForRoute(gw, route)
		}
		if err != nil {
			t.Fatal(err)
		}
		out[name] = res
	}
	return out
}

// enforcement sums up each policy's state over every context it reaches, as GEP-713
// asks: Enforced everywhere, Overridden everywhere, or PartiallyEnforced.
func enforcement(results map[string]*values.Result) map[string]values.State {
	seen := map[string][]values.State{}
	for _, res := range results {
		for _, r := range res.Policies {
			if r.Source.Kind == "GatewayConfig" {
				seen[r.Source.Name] = append(seen[r.Source.Name], r.State())
			}
		}
	}
	out := map[string]values.State{}
	for name, states := range seen {
		out[name] = states[0]
		for _, s := range states[1:] {
			if s != out[name] {
				out[name] = values.PartiallyEnforced
			}
		}
	}
	return out
}

func TestGEP713WorkedExamples(t *testing.T) {
	tests := []struct {
		name     string
		policies string
		want     map[string]string
		states   map[string]values.State
	}{
		{
			name: "Ex. 2: atomic defaults give way whole to a lower policy, and an override takes the route whole",
			policies: gepPolicy("p1", "g1", "default", "{values: {color: red}, strategy: Atomic}") +
				gepPolicy("p2", "r1", "default", "{values: {color: blue}, strategy: Atomic}") +
				gepPolicy("p3", "g2", "override", "{values: {color: yellow}, strategy: Atomic}") +
				gepPolicy("p4", "r4", "default", "{values: {color: green}, strategy: Atomic}"),
			want: map[string]string{
				"g1": "color: red", "g2": "color: yellow",
				"r1": "color: blue", "r2": "color: red", "r3": "color: yellow", "r4": "color: yellow",
			},
			states: map[string]values.State{"p1": values.PartiallyEnforced, "p2": values.Enforced, "p3": values.Enforced, "p4": values.Overridden},
		},
		{
			name: "Ex. 3: an atomic default is never mixed with a lower one, a patch override is",
			policies: gepPolicy("p1", "g1", "default", "{values: {colors: {dark: brown, light: red}}, strategy: Atomic}") +
				gepPolicy("p2", "r1", "default", "{colors: {light: blue}}") +
				gepPolicy("p3", "g2", "override", "{values: {colors: {light: yellow}}, strategy: Patch}") +
				gepPolicy("p4", "r4", "default", "{colors: {dark: olive, light: green}}"),
			want: map[string]string{
				"g1": "colors: {dark: brown, light: red}", "g2": "colors: {light: yellow}",
				"r1": "colors: {light: blue}", "r2": "colors: {dark: brown, light: red}",
				"r3": "colors: {light: yellow}", "r4": "colors: {dark: olive, light: yellow}",
			},
			states: map[string]values.State{"p1": values.PartiallyEnforced, "p2": values.Enforced, "p3": values.Enforced, "p4": values.PartiallyEnforced},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			results := computeGEP(t, tt.policies)
			for context, want := range tt.want {
				t.Run(context, func(t *testing.T) { equalYAML(t, results[context].Values, want) })
			}
			if diff := cmp.Diff(tt.states, enforcement(results)); diff != "" {
				t.Errorf("enforcement (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGEP713AtomicDefaultSaysWhatBeatItAndWhatItDropped(t *testing.T) {
	results := computeGEP(t,
		gepPolicy("p1", "g1", "default", "{values: {colors: {dark: brown, light: red}}, strategy: Atomic}")+
			gepPolicy("p2", "r1", "default", "{colors: {light: blue}}"))
	p2 := values.Origin{Source: values.Source{Kind: "GatewayConfig", Namespace: "gep", Name: "p2"}, As: values.Default, Level: values.LevelRoute, Strategy: patch}
	for _, r := range results["r1"].Policies {
		if r.Source.Name != "p1" {
			continue
		}
		want := []values.OverriddenLeaf{
			{Path: "colors.dark", As: values.Default, By: p2, Strategy: atomic},
			{Path: "colors.light", As: values.Default, By: p2, Strategy: atomic},
		}
		if diff := cmp.Diff(want, r.Overridden); diff != "" {
			t.Errorf("p1 on r1 (-want +got):\n%s", diff)
		}
	}
	dark := originOf(t, results["r1"], "colors.dark")
	if dark.DroppedBy == nil || *dark.DroppedBy != p2 || dark.Value != "brown" || dark.Strategy != atomic {
		t.Errorf("colors.dark on r1: %+v, want brown of p1 dropped for p2", dark)
	}
}

func TestKuadrantDefaultsAndOverridesExamples(t *testing.T) {
	// The Gateway-level policy is the Gateway owner's GatewayConfig (level 6, higher);
	// the route-level one the route's GatewayConfig (level 8, lower).
	tests := []struct {
		name                          string
		gwDefault, gwOverride, routeD string
		want                          string
	}{
		{
			name:      "A, atomic defaults: a route that sets anything takes none of the Gateway's defaults",
			gwDefault: "{values: {authentication: {a: {apiKey: {selector: team}}}, authorization: {b: {opa: {rego: allow}}}}, strategy: Atomic}",
			routeD:    "{authentication: {c: {jwt: {issuer: idp}}}}",
			want:      "authentication: {c: {jwt: {issuer: idp}}}",
		},
		{
			name:      "A, atomic defaults: a route that sets nothing takes the Gateway's defaults whole",
			gwDefault: "{values: {authentication: {a: {apiKey: {selector: team}}}, authorization: {b: {opa: {rego: allow}}}}, strategy: Atomic}",
			want:      "{authentication: {a: {apiKey: {selector: team}}}, authorization: {b: {opa: {rego: allow}}}}",
		},
		{
			name:      "B, merge defaults: each named rule comes whole from one side, the route's first",
			gwDefault: "{values: {a: {apiKey: {selector: team}}, b: {opa: {rego: allow}}}, strategy: Merge}",
			routeD:    "{a: {jwt: {issuer: idp}}, c: {kubernetes: {audience: shop}}}",
			want:      "{a: {jwt: {issuer: idp}}, b: {opa: {rego: allow}}, c: {kubernetes: {audience: shop}}}",
		},
		{
			name:       "C, atomic overrides: the Gateway's override replaces the route's values whole",
			gwOverride: "{values: {limits: {a: {limit: 10}}}, strategy: Atomic}",
			routeD:     "{limits: {b: {limit: 5}}}",
			want:       "limits: {a: {limit: 10}}",
		},
		{
			name:       "D, merge overrides: a named rule of the Gateway replaces the route's rule of that name whole, other rules stay",
			gwOverride: "{values: {a: {limit: 10}}, strategy: Merge}",
			routeD:     "{a: {limit: 500, window: 1m}, b: {limit: 5}}",
			want:       "{a: {limit: 10}, b: {limit: 5}}",
		},
		{
			name:       "E, constraints: a route within the bound keeps its value",
			gwOverride: "{values: {limits: {a: {limit: 100}}}, when: 'self.limits.a.limit > 100'}",
			routeD:     "{limits: {a: {limit: 50, window: 1m}}}",
			want:       "limits: {a: {limit: 50, window: 1m}}",
		},
		{
			name:       "E, constraints: a route over the bound is clipped to it",
			gwOverride: "{values: {limits: {a: {limit: 100}}}, when: 'self.limits.a.limit > 100'}",
			routeD:     "{limits: {a: {limit: 500, window: 1m}}}",
			want:       "limits: {a: {limit: 100, window: 1m}}",
		},
		{
			name:       "F, unset: the route removes a default but not an override",
			gwDefault:  "{a: 1, b: 2}",
			gwOverride: "{c: 3}",
			routeD:     "{a: null, c: null}",
			want:       "{b: 2, c: 3}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objects := policyAt(values.LevelGateway, "gateway", tt.gwDefault, tt.gwOverride)
			if tt.routeD != "" {
				objects += "---\n" + policyAt(values.LevelRoute, "route", tt.routeD, "")
			}
			equalYAML(t, mustCompute(t, objects, "team-b/shop").Values, tt.want)
		})
	}
}

func TestKuadrantReportsSayWhatDecided(t *testing.T) {
	gateway := values.Source{Kind: "GatewayConfig", Namespace: "team-a", Name: "gateway"}
	report := func(res *values.Result, name string) values.PolicyReport {
		for _, r := range res.Policies {
			if r.Source.Name == name {
				return r
			}
		}
		t.Fatalf("no report of %s", name)
		return values.PolicyReport{}
	}

	t.Run("D: the route's rule value the merge override dropped is named with the override", func(t *testing.T) {
		res := mustCompute(t, policyAt(values.LevelGateway, "gateway", "", "{values: {a: {limit: 10}}, strategy: Merge}")+"---\n"+
			policyAt(values.LevelRoute, "route", "{a: {limit: 500, window: 1m}}", ""), "team-b/shop")
		by := values.Origin{Source: gateway, As: values.Override, Level: values.LevelGateway, Strategy: merge}
		want := []values.OverriddenLeaf{
			{Path: "a.limit", As: values.Default, By: by, Strategy: merge},
			{Path: "a.window", As: values.Default, By: by, Strategy: merge},
		}
		if diff := cmp.Diff(want, report(res, "route").Overridden); diff != "" {
			t.Errorf("route (-want +got):\n%s", diff)
		}
		if window := originOf(t, res, "a.window"); window.DroppedBy == nil || *window.DroppedBy != by {
			t.Errorf("a.window: %+v, want dropped by the gateway's Merge override", window)
		}
	})
	t.Run("E: a constraint that does not hold is reported as not applied, and is not overridden", func(t *testing.T) {
		res := mustCompute(t, policyAt(values.LevelGateway, "gateway", "", "{values: {limits: {a: {limit: 100}}}, when: 'self.limits.a.limit > 100'}")+"---\n"+
			policyAt(values.LevelRoute, "route", "{limits: {a: {limit: 50}}}", ""), "team-b/shop")
		r := report(res, "gateway")
		if diff := cmp.Diff([]values.NotApplied{{As: values.Override, Level: values.LevelGateway}}, r.NotApplied); diff != "" {
			t.Errorf("not applied (-want +got):\n%s", diff)
		}
		if r.State() != values.Enforced || len(r.Overridden) != 0 {
			t.Errorf("state %s, overridden %v: want Enforced, nothing overridden", r.State(), r.Overridden)
		}
	})
	t.Run("E: a constraint on a value nobody set fails to evaluate and so applies, which the report says", func(t *testing.T) {
		res := mustCompute(t, policyAt(values.LevelGateway, "gateway", "", "{values: {limits: {a: {limit: 100}}}, when: 'self.limits.a.limit > 100'}"), "team-b/shop")
		equalYAML(t, res.Values, "limits: {a: {limit: 100}}")
		errs := report(res, "gateway").FailedClosed
		if len(errs) != 1 || errs[0].Error != "spec.override.when: no such key: limits" {
			t.Errorf("when errors %+v, want the missing key named", errs)
		}
	})
	t.Run("E: with an optional read the constraint holds off a value nobody set without an error", func(t *testing.T) {
		res := mustCompute(t, policyAt(values.LevelGateway, "gateway", "", "{values: {limits: {a: {limit: 100}}}, when: 'self.?limits.?a.?limit.orValue(0) > 100'}"), "team-b/shop")
		equalYAML(t, res.Values, "{}")
		if r := report(res, "gateway"); len(r.FailedClosed) != 0 || len(r.NotApplied) != 1 {
			t.Errorf("not applied %+v, want a false condition and no error", r.NotApplied)
		}
	})
}
