package revisions

import (
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

func specOf(t *testing.T, doc string) *gatewrightv1alpha1.GatewayClassBlueprintSpec {
	t.Helper()
	spec := &gatewrightv1alpha1.GatewayClassBlueprintSpec{}
	if err := yaml.Unmarshal([]byte(doc), spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

func mustSpecHash(t *testing.T, spec *gatewrightv1alpha1.GatewayClassBlueprintSpec) string {
	t.Helper()
	h, err := SpecHash(spec)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestSpecHash(t *testing.T) {
	const base = `
gatewayTemplate:
  resourceTemplates:
  - name: deployment
    template: "kind: Deployment"
valuesSchema: {type: object, properties: {replicas: {type: integer}}}
`
	cases := []struct {
		name  string
		other string
		same  bool
	}{
		{"the same spec hashes the same", base, true},
		{"a changed template hashes differently", `
gatewayTemplate:
  resourceTemplates:
  - name: deployment
    template: "kind: StatefulSet"
valuesSchema: {type: object, properties: {replicas: {type: integer}}}
`, false},
		{"a changed valuesSchema hashes differently", `
gatewayTemplate:
  resourceTemplates:
  - name: deployment
    template: "kind: Deployment"
valuesSchema: {type: object, properties: {replicas: {type: string}}}
`, false},
	}
	want := mustSpecHash(t, specOf(t, base))
	if len(want) != 64 {
		t.Fatalf("a SHA-256 in hex has 64 characters, got %q", want)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := mustSpecHash(t, specOf(t, c.other)); (got == want) != c.same {
				t.Errorf("hash %s, base %s: same=%v, want %v", got, want, got == want, c.same)
			}
		})
	}
}

func TestSpecHashIsStableOverTheKeyOrderOfValuesSchema(t *testing.T) {
	spec := specOf(t, `{gatewayTemplate: {resourceTemplates: [{name: a, template: x}]}}`)
	other := spec.DeepCopy()
	spec.ValuesSchema = &apiextensionsv1.JSON{Raw: []byte(`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}`)}
	other.ValuesSchema = &apiextensionsv1.JSON{Raw: []byte(`{"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"type":"object"}`)}
	if a, b := mustSpecHash(t, spec), mustSpecHash(t, other); a != b {
		t.Errorf("the same valuesSchema in another key order hashes %s and %s", a, b)
	}
}

func TestSpecHashIgnoresTheRolloutBlock(t *testing.T) {
	spec := specOf(t, `{gatewayTemplate: {resourceTemplates: [{name: a, template: x}]}}`)
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	var withRollout map[string]any
	if err := json.Unmarshal(raw, &withRollout); err != nil {
		t.Fatal(err)
	}
	withRollout["rollout"] = map[string]any{"strategy": "AllAtOnce"}
	got, err := specDocumentHash(withRollout)
	if err != nil {
		t.Fatal(err)
	}
	if want := mustSpecHash(t, spec); got != want {
		t.Errorf("a spec with a rollout block hashes %s, without it %s: rollout must not make a revision", got, want)
	}
}

func TestValuesHashIsStableOverMapOrder(t *testing.T) {
	first := map[string]any{}
	second := map[string]any{}
	for i, key := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		first[key] = map[string]any{"n": i, "list": []any{key, i}}
	}
	for _, key := range []string{"h", "g", "f", "e", "d", "c", "b", "a"} {
		second[key] = first[key]
	}
	a, err := ValuesHash(first)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 { // Go randomizes map iteration: any order dependence shows within a few runs
		b, err := ValuesHash(second)
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Fatalf("the same values hash %s and %s", a, b)
		}
	}
	second["a"] = "changed"
	if b, _ := ValuesHash(second); a == b {
		t.Errorf("changed values hash the same: %s", a)
	}
}

func TestSpecHashIgnoresARolloutOnlyEdit(t *testing.T) {
	spec := specOf(t, `{gatewayTemplate: {resourceTemplates: [{name: a, template: x}]}}`)
	edited := specOf(t, `
gatewayTemplate: {resourceTemplates: [{name: a, template: x}]}
rollout: {strategy: AllAtOnce, waves: ["100%"], soakSeconds: 5, paused: true, order: {namespaceLabel: ring}}
`)
	if a, b := mustSpecHash(t, spec), mustSpecHash(t, edited); a != b {
		t.Errorf("editing only spec.rollout changed the hash from %s to %s: it would make a new revision", a, b)
	}
}

func TestHashWithClassConfigs(t *testing.T) {
	spec := specOf(t, `
rollout: {soakSeconds: 5}
gatewayTemplate: {resourceTemplates: [{name: config, template: "kind: ConfigMap"}]}
`)
	config := func(replicas string) []gatewrightv1alpha1.RevisionClassConfig {
		return []gatewrightv1alpha1.RevisionClassConfig{{Name: "fleet", Spec: gatewrightv1alpha1.GatewayClassConfigSpec{
			RolloutWithBlueprint: ptr.To(true),
			DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: &apiextensionsv1.JSON{Raw: []byte(`{"replicas":` + replicas + `}`)}},
		}}}
	}
	hash := func(spec *gatewrightv1alpha1.GatewayClassBlueprintSpec, configs []gatewrightv1alpha1.RevisionClassConfig) string {
		t.Helper()
		h, err := Hash(spec, configs)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if hash(spec, nil) != mustSpecHash(t, spec) {
		t.Error("without configs the hash is not the spec's: a blueprint's revisions would change with the upgrade")
	}
	if hash(spec, config("2")) == hash(spec, config("3")) {
		t.Error("a config's change does not change the hash: it would make no revision")
	}
	if hash(spec, config("2")) == mustSpecHash(t, spec) {
		t.Error("a config's arrival does not change the hash")
	}
	other := spec.DeepCopy()
	other.Rollout = nil
	if hash(spec, config("2")) != hash(other, config("2")) {
		t.Error("spec.rollout changes the hash with configs")
	}
}
