package translate

import (
	"fmt"
	"slices"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

func TestSupportedFeatures(t *testing.T) {
	many := func(n int) []string {
		var out []string
		for i := n; i > 0; i-- {
			out = append(out, fmt.Sprintf("Feature%03d", i))
		}
		return out
	}
	tests := []struct {
		name   string
		serves *gatewrightv1alpha1.Serves
		want   []string
	}{
		{"a blueprint without serves lists what Gatewright itself does", nil,
			[]string{"Gateway", "GatewayInfrastructure", "GatewayPort8080", "HTTPRoute", "HTTPRouteParentRefPort", "ReferenceGrant"}},
		{"serves without features lists the same", &gatewrightv1alpha1.Serves{Protocols: []gatewayv1.ProtocolType{"TCP"}},
			[]string{"Gateway", "GatewayInfrastructure", "GatewayPort8080", "HTTPRoute", "HTTPRouteParentRefPort", "ReferenceGrant"}},
		{"features listed replace the default, sorted by name, each once", &gatewrightv1alpha1.Serves{Features: []string{"TLSRoute", "Gateway", "GRPCRoute", "Gateway"}},
			[]string{"GRPCRoute", "Gateway", "TLSRoute"}},
		{"the most the API takes are all listed", &gatewrightv1alpha1.Serves{Features: many(MaxSupportedFeatures)}, many(MaxSupportedFeatures)},
		{"more than the API takes are cut to the first by name", &gatewrightv1alpha1.Serves{Features: many(MaxSupportedFeatures + 10)}, many(MaxSupportedFeatures + 10)[10:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range SupportedFeatures(&gatewrightv1alpha1.GatewayClassBlueprintSpec{Serves: tt.serves}) {
				got = append(got, string(f.Name))
			}
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
		})
	}
}

func TestServesReadsTheBlueprintsServes(t *testing.T) {
	tests := []struct {
		name, spec string
		protocol   gatewayv1.ProtocolType
		mode       gatewayv1.TLSModeType
		kind       gatewayv1.Kind
		want       [3]bool
	}{
		{"without serves: HTTPS, Terminate, HTTPRoute", `{}`, "HTTPS", "Terminate", "HTTPRoute", [3]bool{true, true, true}},
		{"without serves: no TCP, Passthrough or TCPRoute", `{}`, "TCP", "Passthrough", "TCPRoute", [3]bool{false, false, false}},
		{"what serves lists", `{serves: {protocols: [TCP], tlsModes: [Passthrough], routeKinds: [TCPRoute]}}`, "TCP", "Passthrough", "TCPRoute", [3]bool{true, true, true}},
		{"what serves lists replaces the defaults", `{serves: {protocols: [TCP], tlsModes: [Passthrough], routeKinds: [TCPRoute]}}`, "HTTPS", "Terminate", "HTTPRoute", [3]bool{false, false, false}},
		{"a field left out keeps its default", `{serves: {protocols: [TCP]}}`, "TCP", "Terminate", "HTTPRoute", [3]bool{true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var spec gatewrightv1alpha1.GatewayClassBlueprintSpec
			if err := yaml.Unmarshal([]byte(tt.spec), &spec); err != nil {
				t.Fatal(err)
			}
			s := Serves(&spec)
			if got := [3]bool{s.Protocol(tt.protocol), s.TLSMode(tt.mode), s.RouteKind(tt.kind)}; got != tt.want {
				t.Errorf("%s, %s, %s served: got %v, want %v", tt.protocol, tt.mode, tt.kind, got, tt.want)
			}
		})
	}
}
