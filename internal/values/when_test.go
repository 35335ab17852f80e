package values_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

func TestConditionsThatFailAtRunTime(t *testing.T) {
	list := make([]string, 200)
	for i := range list {
		list[i] = fmt.Sprint(i)
	}
	tests := []struct {
		name  string
		when  string
		below string
		want  string // in the report's error
	}{
		{name: "a condition over the cost bound stops and does not apply", when: "self.items.all(x, self.items.all(y, x == y || x != y))", below: "{items: [" + strings.Join(list, ", ") + "]}", want: "spec.override.when: operation cancelled: actual cost limit exceeded"},
		{name: "a condition that gives no bool does not apply", when: "self.mode", below: "{mode: enabled}", want: "spec.override.when: evaluated to string, not a bool"},
		{name: "a condition on a key that is not there does not apply", when: "self.mode == 'on'", below: "{other: 1}", want: "spec.override.when: no such key: mode"},
		{name: "a condition that divides by zero does not apply", when: "1 / self.zero == 1", below: "{zero: 0}", want: "spec.override.when: division by zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustCompute(t,
				policyAt(values.LevelGateway, "web", "", "{values: {applied: true}, when: '"+strings.ReplaceAll(tt.when, "'", "''")+"'}")+"---\n"+
					policyAt(values.LevelRoute, "shop", tt.below, ""), "team-b/shop")
			if _, applied := res.Values["applied"]; applied {
				t.Error("the block applied")
			}
			for _, r := range res.Policies {
				if r.Source.Name != "web" {
					continue
				}
				if errs := r.WhenErrors(); len(errs) != 1 || errs[0].Error != tt.want || errs[0].As != values.Override || errs[0].Level != values.LevelGateway {
					t.Errorf("when errors %+v, want %q", errs, tt.want)
				}
			}
		})
	}
}

func TestAConditionIsEvaluatedAtEachLevelItTakesPartAt(t *testing.T) {
	// One config targeting the Namespace (level 5) and the Gateway (level 6): at level
	// 6 nothing is below it yet, at level 5 its own level-6 default is.
	res := mustCompute(t, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: both, namespace: team-a}
spec:
  targetRefs: [{group: "", kind: Namespace, name: team-a}, {group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {values: {count: 1}, when: '!has(self.count)'}
`, "")
	equalYAML(t, res.Values, "count: 1")
	for _, r := range res.Policies {
		if r.Source.Name == "both" && (len(r.NotApplied) != 1 || r.NotApplied[0].Level != values.LevelTenantNamespace || r.State() != values.Enforced) {
			t.Errorf("report %+v: want applied at level 6, not at level 5, and Enforced", r)
		}
	}
}

// FuzzConditions feeds arbitrary text as the condition of a provider's override: it is
// refused when the policy is read, or it is evaluated, true, false or failing, and
// never stops the computation otherwise.
func FuzzConditions(f *testing.F) {
	for _, seed := range []string{
		"self.a > 1", "has(self.b) && self.b.all(x, x > 0)", "self.?c.orValue('') == 'x'", "self.s.matches('^x+$')",
		"size(self) == 3", "self.b.map(x, x * 2).exists(y, y == 4)", "1 / self.zero > 0", "self.a", "self.a >", "",
		"[1, 2, 3].all(x, [1, 2, 3].all(y, [1, 2, 3].all(z, x + y + z > 0)))", "'a' + self.s == 'ax'",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expression string) {
		raw, err := json.Marshal(map[string]any{"values": map[string]any{"applied": true}, "when": expression})
		if err != nil {
			t.Skip() // not UTF-8: a JSON manifest cannot hold it
		}
		in, gw, route := blockInputs(values.LevelGlobalClass, "limits", values.Override, string(raw))
		in.Blueprint.Spec.Values = &gatewrightv1alpha1.DefaultsAndOverrides{Default: rawJSON(map[string]any{"a": 2, "b": []any{1, 2}, "s": "x", "zero": 0})}
		res, err := in.ForHTTPRoute(gw, route)
		var policyErr *values.PolicyError
		switch {
		case errors.As(err, &policyErr):
			if policyErr.Field != "spec.override.when" {
				t.Fatalf("refused at %s: %v", policyErr.Field, err)
			}
		case err != nil:
			t.Fatal(err)
		default:
			_, applied := res.Values["applied"]
			for _, r := range res.Policies {
				if r.Source.Name == "limits" && applied == (len(r.NotApplied) > 0) {
					t.Fatalf("applied %v, but the report says %+v", applied, r.NotApplied)
				}
			}
		}
	})
}
