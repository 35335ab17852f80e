package offline_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gatewright/gatewright/internal/offline"
)

// overrideWorld renders its values as JSON, for a Gateway and a route on it. The
// blueprint overrides tier and caps replicas at 5 in its schema; the tenant sets
// replicas to 9, beyond it.
const overrideWorld = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:
  values:
    default: {replicas: 1, service: {type: ClusterIP, port: 80}, debug: true}
    override: {tier: gold}
  valuesSchema:
    type: object
    properties:
      replicas: {type: integer, maximum: 5}
      service: {type: object, properties: {type: {type: string}, port: {type: integer}}}
      debug: {type: boolean}
      tier: {type: string}
  gatewayTemplate:
    resourceTemplates:
    - name: values
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: gateway}
        data: {values: {{ toJson .Values | quote }}}
  httpRouteTemplate:
    resourceTemplates:
    - name: values
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: route}
        data: {values: {{ toJson .Values | quote }}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gw}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: bp}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: gw
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: team-a}
spec:
  parentRefs: [{name: web}]
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {replicas: 9}
`

func TestOverridesBeatTheWholeChain(t *testing.T) {
	tests := []struct {
		name      string
		overrides []map[string]any
		want      string // the values of the Gateway and of the route
		wantErr   string
	}{
		{
			name:    "without overrides the schema refuses the tenant's value",
			wantErr: "replicas: should be less than or equal to 5, got 9 (set by GatewayConfig team-a/web as default at level 6)",
		},
		{
			name:      "an override mends what the schema refused, beats the blueprint's override, merges objects and removes with null",
			overrides: []map[string]any{{"replicas": int64(3), "tier": "silver", "service": map[string]any{"type": "LoadBalancer"}, "debug": nil}},
			want:      `{"replicas":3,"service":{"port":80,"type":"LoadBalancer"},"tier":"silver"}`,
		},
		{
			name:      "later overrides win, like helm -f a.yaml -f b.yaml --set",
			overrides: []map[string]any{{"replicas": int64(2), "tier": "silver"}, {"replicas": int64(4)}},
			want:      `{"debug":true,"replicas":4,"service":{"port":80,"type":"ClusterIP"},"tier":"silver"}`,
		},
		{
			name:      "the schema is checked on the overridden values",
			overrides: []map[string]any{{"replicas": int64(3), "service": map[string]any{"port": "eighty"}}},
			wantErr:   "with the overrides, values do not match the valuesSchema of GatewayClassBlueprint bp: service.port: must be of type integer",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := &offline.Set{Overrides: tt.overrides}
			if err := set.Add([]byte(overrideWorld)); err != nil {
				t.Fatal(err)
			}
			rendered, err := set.Render("gatewright-system", "")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rendered {
				got = append(got, r.Objects[0].Object["data"].(map[string]any)["values"].(string))
			}
			if diff := cmp.Diff([]string{tt.want, tt.want}, got); diff != "" {
				t.Errorf("values of the Gateway and the route (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOverridesLeaveTheirInputsAlone(t *testing.T) {
	override := map[string]any{"service": map[string]any{"type": "LoadBalancer"}}
	set := &offline.Set{Overrides: []map[string]any{override, {"service": nil}, {"replicas": int64(2)}}}
	if err := set.Add([]byte(overrideWorld)); err != nil {
		t.Fatal(err)
	}
	if _, err := set.Render("gatewright-system", ""); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"service": map[string]any{"type": "LoadBalancer"}}, override); diff != "" {
		t.Errorf("an override was changed (-want +got):\n%s", diff)
	}
}
