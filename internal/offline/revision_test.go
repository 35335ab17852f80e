package offline_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/revisions"
)

// versionSpec is a blueprint spec whose template writes version into each Gateway's
// ConfigMap, with the greeting its values say.
func versionSpec(version string) string {
	return fmt.Sprintf(`
values:
  default: {greeting: hello}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}}
      data: {version: %s, greeting: {{ .Values.greeting | quote }}}
`, version)
}

// midRollout is a cluster whose blueprint has revisions one and two, two its live
// spec, with currentRevision 1: Gateway web runs revision 1, and api runs revision 2,
// which a rollout assigned it in its Rendering.
func midRollout(t *testing.T) string {
	t.Helper()
	return midRolloutWith(t, "")
}

// ridingConfig is a class-wide GatewayClassConfig of class gw, which rides the rollout
// of its blueprint by default, giving greeting.
func ridingConfig(greeting string) string {
	return `
targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: gw}]
default: {greeting: ` + greeting + `}
`
}

// midRollingWithConfig is midRollout with a riding GatewayClassConfig that gives
// greeting "fleet-one", held by both revisions.
func midRolloutWithConfig(t *testing.T) string {
	t.Helper()
	return midRolloutWith(t, ridingConfig("fleet-one"))
}

// midRolloutWith is midRollout with, when riding is not empty, a GatewayClassConfig
// "fleet" of that spec in gatewright-system, which both revisions hold.
func midRolloutWith(t *testing.T, riding string) string {
	t.Helper()
	var held []gatewrightv1alpha1.RevisionClassConfig
	var b strings.Builder
	if riding != "" {
		var spec gatewrightv1alpha1.GatewayClassConfigSpec
		if err := yaml.Unmarshal([]byte(riding), &spec); err != nil {
			t.Fatal(err)
		}
		held = []gatewrightv1alpha1.RevisionClassConfig{{Name: "fleet", Spec: spec}}
		fmt.Fprintf(&b, `apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: fleet, namespace: gatewright-system}
spec:%s---`, indent(riding))
	}
	fmt.Fprintf(&b, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp, uid: bp-uid}
spec:%s
status: {currentRevision: 1, targetRevision: 2}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gw}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: bp}
`, indent(versionSpec("two")))
	for _, name := range []string{"web", "api"} {
		fmt.Fprintf(&b, `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: %s, namespace: team-a}
spec:
  gatewayClassName: gw
  listeners: [{name: http, protocol: HTTP, port: 80}]
`, name)
	}
	b.WriteString(`---
apiVersion: gatewright.dev/v1alpha1
kind: Rendering
metadata: {name: gateway.api, namespace: team-a}
owner: {kind: Gateway, name: api, gatewayNamespace: team-a, gatewayName: api}
targetRevision: 2
targetBlueprint: bp
`)
	for n, version := range []string{"one", "two"} {
		var spec gatewrightv1alpha1.GatewayClassBlueprintSpec
		if err := yaml.Unmarshal([]byte(versionSpec(version)), &spec); err != nil {
			t.Fatal(err)
		}
		hash, err := revisions.Hash(&spec, held)
		if err != nil {
			t.Fatal(err)
		}
		heldDoc, err := json.Marshal(held)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, `---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprintRevision
metadata:
  name: bp-%[1]d
  ownerReferences: [{apiVersion: gatewright.dev/v1alpha1, kind: GatewayClassBlueprint, name: bp, uid: bp-uid, controller: true}]
blueprint: bp
revision: %[1]d
hash: %[2]s
classConfigs: %[4]s
spec:%[3]s`, n+1, hash, indent(versionSpec(version)), heldDoc)
	}
	return b.String()
}

// withoutKind is the documents of stream but those of kind.
func withoutKind(stream, kind string) string {
	var kept []string
	for _, doc := range strings.Split(stream, "\n---\n") {
		if !strings.Contains(doc, "\nkind: "+kind+"\n") {
			kept = append(kept, doc)
		}
	}
	return strings.Join(kept, "\n---\n")
}

// indent indents a spec's lines to follow "spec:".
func indent(spec string) string {
	return strings.ReplaceAll(strings.TrimRight(spec, "\n"), "\n", "\n  ") + "\n"
}

// Each Gateway computes with the blueprint revision it runs; a change over the set runs
// the same revisions, but for a blueprint edit, which is the new revision.
func TestSetRendersTheRevisionEachGatewayRuns(t *testing.T) {
	tests := []struct {
		name    string
		base    func(t *testing.T) string
		changes string
		want    map[string]string // Gateway: version, greeting
	}{
		{name: "a Gateway runs currentRevision, or the revision its Rendering names",
			base: midRollout,
			want: map[string]string{"web": "one hello", "api": "two hello"}},
		{name: "files without the revisions render the live spec",
			base: func(t *testing.T) string {
				return withoutKind(midRollout(t), gatewrightv1alpha1.KindGatewayClassBlueprintRevision)
			},
			want: map[string]string{"web": "two hello", "api": "two hello"}},
		{name: "a policy edit computes with the revision each Gateway runs now",
			base: midRollout,
			changes: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: team, namespace: team-a}
spec:
  targetRefs: [{group: "", kind: Namespace, name: team-a}]
  default: {greeting: hi}
`,
			want: map[string]string{"web": "one hi", "api": "two hi"}},
		{name: "a blueprint edit is the new revision every Gateway runs once the rollout reaches it",
			base: midRollout,
			changes: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:` + indent(versionSpec("three")),
			want: map[string]string{"web": "three hello", "api": "three hello"}},
		{name: "the live spec applied again is no new revision: each Gateway keeps the one it runs",
			base: midRollout,
			changes: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:` + indent(versionSpec("two")),
			want: map[string]string{"web": "one hello", "api": "two hello"}},
		{name: "a GatewayClassConfig that rides the rollout computes as each Gateway's revision holds it",
			base: midRolloutWithConfig,
			want: map[string]string{"web": "one fleet-one", "api": "two fleet-one"}},
		{name: "a change of a riding GatewayClassConfig is a new revision every Gateway runs once the rollout reaches it",
			base: midRolloutWithConfig,
			changes: `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: fleet, namespace: gatewright-system}
spec:` + indent(ridingConfig("fleet-two")),
			want: map[string]string{"web": "two fleet-two", "api": "two fleet-two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := &offline.Set{}
			if err := set.Add([]byte(tt.base(t))); err != nil {
				t.Fatal(err)
			}
			if tt.changes != "" {
				changes := &offline.Set{}
				if err := changes.Add([]byte(tt.changes)); err != nil {
					t.Fatal(err)
				}
				var err error
				if set, err = set.With(changes, nil, "gatewright-system"); err != nil {
					t.Fatal(err)
				}
			}
			rendered, err := set.Render("gatewright-system", "")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, r := range rendered {
				for _, obj := range r.Objects {
					data := obj.Object["data"].(map[string]any)
					got[obj.GetName()] = fmt.Sprint(data["version"], " ", data["greeting"])
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
