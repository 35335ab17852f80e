package values_test

import (
	"fmt"
	"strings"
	"testing"

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
