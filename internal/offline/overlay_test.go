package offline_test

import (
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/offline"
)

const overlayBase = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec: {gatewayClassName: one, listeners: [{name: http, port: 80, protocol: HTTP}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: api, namespace: team-a}
spec: {gatewayClassName: one, listeners: [{name: http, port: 80, protocol: HTTP}]}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: team, namespace: team-a}
spec: {targetRefs: [{group: "", kind: Namespace, name: team-a}], default: {replicas: 1}}
`

func mustSet(t *testing.T, yaml string) *offline.Set {
	t.Helper()
	set := &offline.Set{}
	if err := set.Add([]byte(yaml)); err != nil {
		t.Fatal(err)
	}
	return set
}

func TestWithReplacesAddsAndDeletes(t *testing.T) {
	base := mustSet(t, overlayBase)
	changed := mustSet(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec: {gatewayClassName: two, listeners: [{name: http, port: 80, protocol: HTTP}]}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: extra, namespace: team-a}
spec: {targetRefs: [{group: "", kind: Namespace, name: team-a}], default: {replicas: 2}}
`)
	del, err := offline.ParseRef("gateway/team-a/api")
	if err != nil {
		t.Fatal(err)
	}
	got, err := base.With(changed, []offline.Ref{del}, "gatewright-system")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Gateways) != 1 || got.Gateways[0].Name != "web" || got.Gateways[0].Spec.GatewayClassName != "two" {
		t.Errorf("Gateways: %+v, want web of class two only", got.Gateways)
	}
	if len(got.GatewayConfigs) != 2 || got.GatewayConfigs[1].Name != "extra" {
		t.Errorf("GatewayConfigs: %d, want team then extra", len(got.GatewayConfigs))
	}
	if len(base.Gateways) != 2 || base.Gateways[0].Spec.GatewayClassName != "one" || len(base.GatewayConfigs) != 1 {
		t.Error("With changed the base set")
	}
}

func TestWithRefusesADeleteOfNothing(t *testing.T) {
	ref, err := offline.ParseRef("GatewayConfig/team-a/tema")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mustSet(t, overlayBase).With(&offline.Set{}, []offline.Ref{ref}, "gatewright-system"); err == nil || !strings.Contains(err.Error(), "GatewayConfig/team-a/tema: no such object") {
		t.Errorf("got %v, want an error naming the delete", err)
	}
}

func TestParseRef(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "httproute/team-a/shop", want: "HTTPRoute/team-a/shop"},
		{in: "GatewayClassBlueprint/internet", want: "GatewayClassBlueprint/internet"},
		{in: "Gateway/web", wantErr: "a Gateway is named as Gateway/NAMESPACE/NAME"},
		{in: "GatewayClass/team-a/x", wantErr: "a GatewayClass is named as GatewayClass/NAME"},
		{in: "Deployment/team-a/x", wantErr: "the kind must be one of"},
		{in: "Gateway//web", wantErr: "must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := offline.ParseRef(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("got %v, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestObjectNamespaces(t *testing.T) {
	set := mustSet(t, overlayBase+`---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: team-b}
spec: {}
`)
	if got := strings.Join(set.ObjectNamespaces(), ","); got != "team-a,team-b" {
		t.Errorf("ObjectNamespaces() = %s, want team-a,team-b", got)
	}
}
