package render_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
)

// lbBlueprint: a load balancer, a target group that needs the load balancer's ARN
// from its status, a listener that needs the target group, and a status template.
const lbBlueprint = `
clusterScopedKinds: [{group: elbv2.aws.example.com, kind: LoadBalancer}, {group: elbv2.aws.example.com, kind: TargetGroup}]
gatewayTemplate:
  resourceTemplates:
  - name: listener
    dependsOn: [lb-target-group]
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: listener}
      data:
        targetGroup: {{ (index (index .Resources "lb-target-group") 0).metadata.name | quote }}
  - name: lb-target-group
    dependsOn: [lb]
    template: |
      apiVersion: elbv2.aws.example.com/v1
      kind: TargetGroup
      metadata: {name: {{ .Gateway.metadata.namespace }}-{{ .Gateway.metadata.name }}-tg}
      spec:
        loadBalancerArn: {{ (index .Resources.lb 0).status.arn | quote }}
  - name: lb
    template: |
      apiVersion: elbv2.aws.example.com/v1
      kind: LoadBalancer
      metadata: {name: {{ .Gateway.metadata.namespace }}-{{ .Gateway.metadata.name }}}
      spec: {scheme: internet-facing}
  status:
    template: |
      addresses:
      - type: Hostname
        value: {{ (index .Resources.lb 0).status.dnsName | quote }}
`

func live(apiVersion, kind, name string, status map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{"status": status}}
	obj.SetAPIVersion(apiVersion)
	obj.SetKind(kind)
	obj.SetName(name)
	return obj
}

func readyWhenStatusSaysSo(obj *unstructured.Unstructured, _ string) (bool, string) {
	ready, _, _ := unstructured.NestedBool(obj.Object, "status", "ready")
	return ready, "status.ready is not true"
}

func names(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, obj := range objs {
		out = append(out, obj.GetKind()+"/"+obj.GetName())
	}
	return out
}

func TestDependsOn(t *testing.T) {
	parsed, err := render.Parse(blueprint(t, lbBlueprint))
	if err != nil {
		t.Fatal(err)
	}
	lb := func(ready bool) *unstructured.Unstructured {
		return live("elbv2.aws.example.com/v1", "LoadBalancer", "team-a-web", map[string]any{"ready": ready, "arn": "arn:lb", "dnsName": "lb.example.com"})
	}
	tg := live("elbv2.aws.example.com/v1", "TargetGroup", "team-a-web-tg", map[string]any{"ready": true})
	listener := live("v1", "ConfigMap", "listener", map[string]any{"ready": true})
	listener.SetNamespace("team-a")

	tests := []struct {
		name          string
		live          map[string][]*unstructured.Unstructured
		wantObjects   []string
		wantWaiting   []render.Waiting
		wantAddresses []gatewayv1.GatewayStatusAddress
	}{
		{
			name:        "first round: only the template without dependencies renders, the others wait",
			wantObjects: []string{"LoadBalancer/team-a-web"},
			wantWaiting: []render.Waiting{{Template: "lb-target-group", For: "lb"}, {Template: "listener", For: "lb-target-group"}},
		},
		{
			name:        "a dependency that exists but is not ready still holds its dependents",
			live:        map[string][]*unstructured.Unstructured{"lb": {lb(false)}},
			wantObjects: []string{"LoadBalancer/team-a-web"},
			wantWaiting: []render.Waiting{{Template: "lb-target-group", For: "lb"}, {Template: "listener", For: "lb-target-group"}},
		},
		{
			name:        "once the load balancer is ready the target group renders from its status",
			live:        map[string][]*unstructured.Unstructured{"lb": {lb(true)}},
			wantObjects: []string{"LoadBalancer/team-a-web", "TargetGroup/team-a-web-tg"},
			wantWaiting: []render.Waiting{{Template: "listener", For: "lb-target-group"}},
		},
		{
			name:          "everything ready: every template renders, and so does the status",
			live:          map[string][]*unstructured.Unstructured{"lb": {lb(true)}, "lb-target-group": {tg}, "listener": {listener}},
			wantObjects:   []string{"LoadBalancer/team-a-web", "TargetGroup/team-a-web-tg", "ConfigMap/listener"},
			wantAddresses: []gatewayv1.GatewayStatusAddress{{Type: ptr(gatewayv1.HostnameAddressType), Value: "lb.example.com"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testInput(nil)
			in.Live, in.IsReady = tt.live, readyWhenStatusSaysSo
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
			if out.StatusRendered != (tt.wantAddresses != nil) {
				t.Errorf("status rendered: %v", out.StatusRendered)
			}
			if diff := cmp.Diff(tt.wantAddresses, out.Addresses); diff != "" {
				t.Errorf("addresses (-want +got):\n%s", diff)
			}
		})
	}
}

// Without a status template a blueprint never reports addresses, even with every object
// ready: HasStatus tells the controller to clear those the Gateway has.
func TestHasStatus(t *testing.T) {
	withStatus, err := render.Parse(blueprint(t, lbBlueprint))
	if err != nil {
		t.Fatal(err)
	}
	withoutStatus, err := render.Parse(gatewayTemplates(t, configMap))
	if err != nil {
		t.Fatal(err)
	}
	if !withStatus.HasStatus() || withoutStatus.HasStatus() {
		t.Errorf("HasStatus: %v with a status template, %v without", withStatus.HasStatus(), withoutStatus.HasStatus())
	}
	in := testInput(nil)
	in.IsReady = alwaysReady
	in.Live = map[string][]*unstructured.Unstructured{"first": {live("v1", "ConfigMap", "cm", nil)}}
	in.Live["first"][0].SetNamespace("team-a")
	out, err := withoutStatus.Gateway(in)
	if err != nil {
		t.Fatal(err)
	}
	if out.StatusRendered || out.Addresses != nil {
		t.Errorf("a blueprint without a status template rendered a status: %v", out.Addresses)
	}
}

func TestResourcesAreCopies(t *testing.T) {
	// A template that changes what it reads must not change the caller's live objects
	// (in the controller: the informer cache).
	bp := blueprint(t, `
gatewayTemplate:
  resourceTemplates:
  - name: first
    template: |
      {{- $_ := set (index .Resources.first 0).metadata "name" "changed" }}
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: cm}
`)
	parsed, err := render.Parse(bp)
	if err != nil {
		t.Fatal(err)
	}
	cached := live("v1", "ConfigMap", "cm", nil)
	in := testInput(nil)
	in.Live, in.IsReady = map[string][]*unstructured.Unstructured{"first": {cached}}, readyWhenStatusSaysSo
	if _, err := parsed.Gateway(in); err != nil {
		t.Fatal(err)
	}
	if cached.GetName() != "cm" {
		t.Errorf("the template changed the caller's object: name %q", cached.GetName())
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want string
	}{
		{"a sound blueprint is valid", lbBlueprint, ""},
		{"dependsOn naming a missing template", `
gatewayTemplate:
  resourceTemplates:
  - {name: a, template: x, dependsOn: [b]}`,
			`GatewayClassBlueprint bp, template gateway/a: dependsOn names "b", which is not a template of gateway`},
		{"dependsOn forming a cycle", `
gatewayTemplate:
  resourceTemplates:
  - {name: a, template: x, dependsOn: [c]}
  - {name: b, template: x, dependsOn: [a]}
  - {name: c, template: x, dependsOn: [b]}
  - {name: d, template: x}`,
			"GatewayClassBlueprint bp, template gateway/a: dependsOn forms a cycle: a -> c -> b -> a"},
		{"a template depending on itself", `
httpRouteTemplate:
  resourceTemplates:
  - {name: a, template: x, dependsOn: [a]}
gatewayTemplate: {}`,
			"GatewayClassBlueprint bp, template httproute/a: dependsOn forms a cycle: a -> a"},
		{"a route template cannot depend on a gateway template", `
gatewayTemplate:
  resourceTemplates:
  - {name: lb, template: x}
httpRouteTemplate:
  resourceTemplates:
  - {name: dns, template: x, dependsOn: [lb]}`,
			`template httproute/dns: dependsOn names "lb", which is not a template of httproute`},
		{"helpers that do not parse", `
helpers: |
  {{ define "x" }}
gatewayTemplate: {}`,
			"GatewayClassBlueprint bp, template helpers, line 2: unexpected EOF"},
		{"a status template that does not parse", `
gatewayTemplate:
  status: {template: "{{ .Resources.lb"}`,
			"GatewayClassBlueprint bp, template gateway/status, line 1: unclosed action"},
		{"a valuesSchema that is not a schema", `
valuesSchema: {type: object, properties: {replicas: {type: int}}}
gatewayTemplate: {}`,
			`GatewayClassBlueprint bp: valuesSchema.properties[replicas].type: unknown type "int"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := render.Validate(blueprint(t, tt.spec))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var renderErr *render.Error
			if !errors.As(err, &renderErr) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestSampleBlueprintStatusReportsTheServiceAddress(t *testing.T) {
	set, err := offline.Load("../../samples/provider/blueprint.yaml")
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := render.Parse(&set.Blueprints[0])
	if err != nil {
		t.Fatal(err)
	}
	in := testInput(map[string]any{"replicas": int64(1), "service": map[string]any{"type": "LoadBalancer"}})
	service := live("v1", "Service", "web-proxy", map[string]any{"loadBalancer": map[string]any{"ingress": []any{
		map[string]any{"ip": "192.0.2.10"}, map[string]any{"hostname": "lb.example.com"}}}})
	service.SetNamespace("team-a")
	deployment := live("apps/v1", "Deployment", "web-proxy", nil)
	deployment.SetNamespace("team-a")
	in.Live = map[string][]*unstructured.Unstructured{"service": {service}, "deployment": {deployment}}
	in.IsReady = alwaysReady
	out, err := parsed.Gateway(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []gatewayv1.GatewayStatusAddress{
		{Type: ptr(gatewayv1.IPAddressType), Value: "192.0.2.10"},
		{Type: ptr(gatewayv1.HostnameAddressType), Value: "lb.example.com"},
	}
	if diff := cmp.Diff(want, out.Addresses); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
}

func alwaysReady(*unstructured.Unstructured, string) (bool, string) { return true, "" }
