package render_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/render"
)

// compositeBlueprint: a Crossplane-style composite whose readiness is a condition type of
// its own, which kstatus cannot judge, and an app that waits for it. Routes render a
// template of the same name without readyWhen.
const compositeBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: composite
    readyWhen: self.status.conditions.exists(c, c.type == 'Synced' && c.status == 'True')
    template: |
      apiVersion: example.org/v1
      kind: XNetwork
      metadata: {name: net}
  - name: app
    dependsOn: [composite]
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: app}
httpRouteTemplate:
  resourceTemplates:
  - name: composite
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: route}
`

// kstatusSays stands for apply.Readiness: the judge readyWhen replaces. Its reason, which
// counts replicas, never reaches the Gateway's status.
func kstatusSays(ready bool) render.Readiness {
	return func(*unstructured.Unstructured) (bool, string) { return ready, "kstatus says so" }
}

// liveObject reads a live object written in YAML.
func liveObject(t testing.TB, text string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(text), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}

const syncedComposite = `
apiVersion: example.org/v1
kind: XNetwork
metadata: {name: net, namespace: team-a, labels: {gatewright.dev/template: composite}}
status: {conditions: [{type: Synced, status: "True"}]}
`

func TestReadyWhenDoesNotCompile(t *testing.T) {
	tests := []struct {
		name      string
		readyWhen string
		route     bool
		want      string
	}{
		{name: "a syntax error names the blueprint and the template", readyWhen: "self.status.(",
			want: "GatewayClassBlueprint bp, template gateway/composite: readyWhen does not compile: "},
		{name: "an expression that is not a bool is refused", readyWhen: "1 + 1",
			want: "GatewayClassBlueprint bp, template gateway/composite: readyWhen must evaluate to a bool, not int"},
		{name: "an expression over 4 KiB is refused", readyWhen: "true" + strings.Repeat(" ", 4096),
			want: "GatewayClassBlueprint bp, template gateway/composite: readyWhen is longer than 4096 bytes"},
		{name: "a route template's readyWhen is compiled too", readyWhen: "self.(", route: true,
			want: "GatewayClassBlueprint bp, template httproute/composite: readyWhen does not compile: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := blueprint(t, compositeBlueprint)
			templates := bp.Spec.GatewayTemplate.ResourceTemplates
			if tt.route {
				templates = bp.Spec.HTTPRouteTemplate.ResourceTemplates
			}
			templates[0].ReadyWhen = tt.readyWhen
			err := render.Validate(bp)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want one starting %q", err, tt.want)
			}
		})
	}
}

func TestReadyWhenJudgesTheObjectsOfItsTemplate(t *testing.T) {
	parsed, err := render.Parse(blueprint(t, compositeBlueprint))
	if err != nil {
		t.Fatal(err)
	}
	// Each object is judged as the template its record names (template, of a route's
	// set when route), whatever its labels say.
	tests := []struct {
		name       string
		object     string
		route      string // the route kind; empty for the Gateway
		template   string
		wantReady  bool
		wantReason string
	}{
		{name: "an object whose readyWhen is true is ready, whatever kstatus says", object: syncedComposite, template: "composite", wantReady: true},
		{name: "an object whose readyWhen is false is not ready", object: `
apiVersion: example.org/v1
kind: XNetwork
metadata: {name: net, namespace: team-a, labels: {gatewright.dev/template: composite}}
status: {conditions: [{type: Ready, status: "True"}, {type: Synced, status: "False"}]}
`, template: "composite", wantReason: "readyWhen is false"},
		{name: "an object whose readyWhen fails is not ready, the error as the reason", object: `
apiVersion: example.org/v1
kind: XNetwork
metadata: {name: net, namespace: team-a, labels: {gatewright.dev/template: composite}}
`, template: "composite", wantReason: "readyWhen failed: no such key: status"},
		{name: "an object of a template without readyWhen is judged by kstatus", object: `
apiVersion: v1
kind: ConfigMap
metadata: {name: app, namespace: team-a, labels: {gatewright.dev/template: app}}
`, template: "app"},
		{name: "a route's object is judged by its own template, not the gateway template of that name", object: `
apiVersion: v1
kind: ConfigMap
metadata: {name: route, namespace: team-a, labels: {gatewright.dev/template: composite, gatewright.dev/httproute-name: r}}
`, route: "HTTPRoute", template: "composite"},
		{name: "labels someone put on the live object choose no other judge", object: `
apiVersion: example.org/v1
kind: XNetwork
metadata: {name: net, namespace: team-a, labels: {gatewright.dev/template: app, gatewright.dev/httproute-name: mine}}
status: {conditions: [{type: Ready, status: "True"}, {type: Synced, status: "False"}]}
`, template: "composite", wantReason: "readyWhen is false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ready, reason := parsed.Readiness(tt.route, kstatusSays(false))(liveObject(t, tt.object), tt.template)
			if ready != tt.wantReady || reason != tt.wantReason {
				t.Errorf("ready %v (%q), want %v (%q)", ready, reason, tt.wantReady, tt.wantReason)
			}
		})
	}
}

func TestReadinessWithoutReadyWhenIsKstatusVerdict(t *testing.T) {
	parsed, err := render.Parse(gatewayTemplates(t, configMap))
	if err != nil {
		t.Fatal(err)
	}
	for _, kstatus := range []bool{true, false} {
		if ready, reason := parsed.Readiness("", kstatusSays(kstatus))(liveObject(t, syncedComposite), "composite"); ready != kstatus || reason != "" {
			t.Errorf("ready %v (%q), want kstatus's verdict %v without its reason: a blueprint without readyWhen leaves every object to kstatus", ready, reason, kstatus)
		}
	}
	withReadyWhen, err := render.Parse(blueprint(t, compositeBlueprint))
	if err != nil {
		t.Fatal(err)
	}
	if withReadyWhen.Readiness("", nil) != nil {
		t.Error("offline (no judge), Readiness must stay nil so that the render knows it is offline")
	}
}

func TestReadyWhenHoldsDependsOnBack(t *testing.T) {
	parsed, err := render.Parse(blueprint(t, compositeBlueprint))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		composite   string
		wantObjects []string
		wantWaiting []render.Waiting
	}{
		{name: "the app waits while the composite is not synced, though kstatus calls it ready", composite: `
apiVersion: example.org/v1
kind: XNetwork
metadata: {name: net, namespace: team-a, labels: {gatewright.dev/template: composite}}
status: {conditions: [{type: Synced, status: "False"}]}
`, wantObjects: []string{"XNetwork/net"}, wantWaiting: []render.Waiting{{Template: "app", For: "composite"}}},
		{name: "the app renders once the composite is synced", composite: syncedComposite,
			wantObjects: []string{"XNetwork/net", "ConfigMap/app"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testInput(nil)
			in.IsReady = parsed.Readiness("", kstatusSays(true))
			in.Live = map[string][]*unstructured.Unstructured{"composite": {liveObject(t, tt.composite)}}
			out, err := parsed.Gateway(in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantObjects, names(out.Objects)); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWaiting, out.Waiting); diff != "" {
				t.Errorf("waiting (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTheDocumentedCompositeReadyWhen checks the readyWhen of docs/blueprints.md on the
// states a Crossplane composite goes through.
func TestTheDocumentedCompositeReadyWhen(t *testing.T) {
	bp := blueprint(t, compositeBlueprint)
	bp.Spec.GatewayTemplate.ResourceTemplates[0].ReadyWhen = `self.?status.?conditions.orValue([]).exists(c, c.type == 'Synced' && c.status == 'True')
&& self.?status.?vpcId.orValue('') != ''`
	parsed, err := render.Parse(bp)
	if err != nil {
		t.Fatal(err)
	}
	const metadata = "apiVersion: platform.example.org/v1alpha1\nkind: XGatewayNetwork\nmetadata: {name: net, labels: {gatewright.dev/template: composite}}\n"
	tests := []struct {
		name   string
		status string
		want   bool
	}{
		{name: "a fresh composite without status is not ready", status: "", want: false},
		{name: "ready but not synced is not ready", status: `status: {conditions: [{type: Ready, status: "True"}], vpcId: vpc-1}`, want: false},
		{name: "synced without its VPC ID is not ready", status: `status: {conditions: [{type: Synced, status: "True"}]}`, want: false},
		{name: "synced with its VPC ID is ready", status: `status: {conditions: [{type: Synced, status: "True"}], vpcId: vpc-1}`, want: true},
	}
	judge := parsed.Readiness("", kstatusSays(true))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ready, reason := judge(liveObject(t, metadata+tt.status), "composite"); ready != tt.want {
				t.Errorf("ready %v (%q), want %v", ready, reason, tt.want)
			}
		})
	}
}
