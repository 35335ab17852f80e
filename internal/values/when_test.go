package values_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// TestAConditionThatCannotBeEvaluatedFailsClosed puts a provider's block with a
// condition over a tenant's values that make the condition fail: the provider's block
// applies all the same, as an override and as a default, and the report says why.
func TestAConditionThatCannotBeEvaluatedFailsClosed(t *testing.T) {
	hosts := make([]string, 2000)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("%q", fmt.Sprintf("h%d.example.com", i))
	}
	long := strings.Repeat("a", 250_000)
	tests := []struct {
		name   string
		when   string
		tenant string // the tenant's default, at level 6
		want   string // the error, after spec.<half>.when:
	}{
		{name: "a tenant's string where the provider compares a number", when: "self.limits.a.limit > 100",
			tenant: `{limits: {a: {limit: "500"}}}`, want: "no such overload"},
		{name: "a tenant's list padded to 2,000 hosts pushes exists over the cost bound", when: "self.hosts.exists(h, h.endsWith('.internal'))",
			tenant: `{"hosts": [` + strings.Join(hosts, ", ") + `]}`, want: "operation cancelled: actual cost limit exceeded"},
		{name: "a tenant's string of 250 KB pushes matches over the cost bound", when: "self.name.matches('^[a-z]+$')",
			tenant: `{"name": "` + long + `"}`, want: "operation cancelled: actual cost limit exceeded"},
		{name: "a tenant's string of 250 KB pushes size() over the cost bound", when: "self.name.size() < 64",
			tenant: `{"name": "` + long + `"}`, want: "operation cancelled: actual cost limit exceeded"},
		{name: "a tenant's string of 250 KB pushes contains over the cost bound", when: "self.name.contains('internal')",
			tenant: `{"name": "` + long + `"}`, want: "operation cancelled: actual cost limit exceeded"},
		{name: "two tenant strings of 250 KB push == over the cost bound", when: "self.name == self.other",
			tenant: `{"name": "` + long + `", "other": "` + long + `"}`, want: "operation cancelled: actual cost limit exceeded"},
		{name: "a key the tenant unset", when: "self.mode == 'on'", tenant: `{mode: null}`, want: "no such key: mode"},
		{name: "a tenant's value that is not a bool", when: "self.mode", tenant: `{mode: enabled}`, want: "evaluated to string, not a bool"},
		{name: "a tenant's zero the provider divides by", when: "1 / self.zero == 1", tenant: `{zero: 0}`, want: "division by zero"},
	}
	for _, tt := range tests {
		for _, half := range []values.Half{values.Override, values.Default} {
			t.Run(tt.name+" ("+string(half)+")", func(t *testing.T) {
				block := "{values: {bounded: true, limits: {a: {limit: 100}}}, when: '" + strings.ReplaceAll(tt.when, "'", "''") + "'}"
				provider := policyAt(values.LevelGlobalClass, "limits", block, "")
				if half == values.Override {
					provider = policyAt(values.LevelGlobalClass, "limits", "", block)
				}
				res := mustCompute(t, provider+"---\n"+policyAt(values.LevelGateway, "web", tt.tenant, ""), "")
				if res.Values["bounded"] != true {
					t.Errorf("the provider's %s did not apply: %v", half, res.Values["bounded"])
				}
				if limit := res.Values["limits"].(map[string]any)["a"].(map[string]any)["limit"]; half == values.Override && limit != int64(100) {
					t.Errorf("limit %v, want the provider's 100", limit)
				}
				r := reportOf(t, res, "limits")
				want := []values.FailedCondition{{As: half, Level: values.LevelGlobalClass, Error: "spec." + string(half) + ".when: " + tt.want}}
				if diff := cmp.Diff(want, r.FailedClosed); diff != "" {
					t.Errorf("failed closed (-want +got):\n%s", diff)
				}
				if len(r.NotApplied) != 0 {
					t.Errorf("not applied %+v, want none", r.NotApplied)
				}
			})
		}
	}
}

// reportOf returns the report of the policy named name.
func reportOf(t testing.TB, res *values.Result, name string) values.PolicyReport {
	t.Helper()
	for _, r := range res.Policies {
		if r.Source.Name == name {
			return r
		}
	}
	t.Fatalf("no report of %s", name)
	return values.PolicyReport{}
}

// TestConditionsShareTheBudgetOfAComputation gives the provider fourteen overrides whose
// conditions each use 9,504 cost units (five per item of 1,900, and four): ten use
// 95,040 of the computation's 100,000, the eleventh starts with what is left and may
// use its own bound, and the other three fail closed without being evaluated.
func TestConditionsShareTheBudgetOfAComputation(t *testing.T) {
	const overrides = 14
	items := strings.TrimSuffix(strings.Repeat("1, ", 1900), ", ")
	objects := policyAt(values.LevelGateway, "web", "{items: ["+items+"]}", "")
	for i := range overrides {
		objects += "---\n" + policyAt(values.LevelGlobalClass, fmt.Sprintf("p%02d", i), "",
			fmt.Sprintf("{values: {p%02d: true}, when: '!self.items.all(x, x >= 1)'}", i))
	}
	// Each condition also has a time bound; a run in which a busy machine interrupted one
	// says nothing of the cost budget, and is run again.
	var res *values.Result
	for attempt := 0; attempt < 3; attempt++ {
		if res = mustCompute(t, objects, ""); !interrupted(res) {
			break
		}
	}
	evaluated, failed := 0, 0
	for i := range overrides {
		name := fmt.Sprintf("p%02d", i)
		r := reportOf(t, res, name)
		switch {
		case len(r.NotApplied) == 1 && len(r.FailedClosed) == 0:
			evaluated++
		case len(r.FailedClosed) == 1 && r.FailedClosed[0].Error == "spec.override.when: not evaluated: the conditions of these values used up their 100000 cost units together":
			failed++
			if res.Values[name] != true {
				t.Errorf("%s failed closed but did not apply", name)
			}
		default:
			t.Errorf("%s: %+v", name, r)
		}
	}
	if evaluated != 11 || failed != 3 {
		t.Errorf("%d evaluated, %d failed closed; want 11 and 3", evaluated, failed)
	}
}

// interrupted tells whether a condition of res failed closed on its time bound.
func interrupted(res *values.Result) bool {
	for _, r := range res.Policies {
		for _, f := range r.FailedClosed {
			if strings.Contains(f.Error, "deadline exceeded") {
				return true
			}
		}
	}
	return false
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
		res, err := in.ForRoute(gw, route)
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
