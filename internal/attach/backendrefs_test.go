package attach

import (
	"slices"
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

func TestResolveBackendRefs(t *testing.T) {
	var grants []gatewayv1.ReferenceGrant
	if err := yaml.UnmarshalStrict([]byte(grantsYAML), &grants); err != nil {
		t.Fatal(err)
	}
	services := map[string]bool{"shop/web": true, "backends/web": true, "payments/card": true, "payments/ledger": true}
	exists := func(namespace, name string) (bool, error) { return services[namespace+"/"+name], nil }
	tests := []struct {
		name       string
		rules      string
		wantReason gatewayv1.RouteConditionReason
		wantRefs   []gatewayv1.RouteConditionReason
		wantInMsg  string
	}{
		{"a route without backendRefs resolves",
			`[{}]`, gatewayv1.RouteReasonResolvedRefs, nil, ""},
		{"a Service of the route's namespace that exists resolves, unset kind meaning Service",
			`[{backendRefs: [{name: web, port: 80}]}]`, gatewayv1.RouteReasonResolvedRefs, []gatewayv1.RouteConditionReason{"ResolvedRefs"}, ""},
		{"group core and kind Service spelled out resolve too",
			`[{backendRefs: [{group: "", kind: Service, name: web, port: 80}]}]`, gatewayv1.RouteReasonResolvedRefs, []gatewayv1.RouteConditionReason{"ResolvedRefs"}, ""},
		{"another kind is InvalidKind",
			`[{backendRefs: [{group: unknownkind.example.com, kind: NonExistent, name: web, port: 8080}]}]`, gatewayv1.RouteReasonInvalidKind, []gatewayv1.RouteConditionReason{"InvalidKind"}, "backendRef shop/web is a NonExistent.unknownkind.example.com"},
		{"a Service that does not exist is BackendNotFound",
			`[{backendRefs: [{name: gone, port: 80}]}]`, gatewayv1.RouteReasonBackendNotFound, []gatewayv1.RouteConditionReason{"BackendNotFound"}, "backendRef shop/gone names a Service that does not exist"},
		{"a Service in another namespace without a grant is RefNotPermitted",
			`[{backendRefs: [{name: web, namespace: elsewhere, port: 80}]}]`, gatewayv1.RouteReasonRefNotPermitted, []gatewayv1.RouteConditionReason{"RefNotPermitted"}, "backendRef elsewhere/web is in another namespace"},
		{"a Service in another namespace with a grant resolves",
			`[{backendRefs: [{name: web, namespace: backends, port: 80}]}]`, gatewayv1.RouteReasonResolvedRefs, []gatewayv1.RouteConditionReason{"ResolvedRefs"}, ""},
		{"a grant for another name leaves the route's rule unresolved and its sibling rule resolved",
			`[{backendRefs: [{name: ledger, namespace: payments, port: 80}]}, {backendRefs: [{name: card, namespace: payments, port: 80}]}]`,
			gatewayv1.RouteReasonRefNotPermitted, []gatewayv1.RouteConditionReason{"RefNotPermitted", "ResolvedRefs"}, "payments/ledger"},
		{"a missing Service without a grant is RefNotPermitted, saying nothing of its existence",
			`[{backendRefs: [{name: gone, namespace: elsewhere, port: 80}]}]`, gatewayv1.RouteReasonRefNotPermitted, []gatewayv1.RouteConditionReason{"RefNotPermitted"}, ""},
		{"the route takes the reason of its first unresolved backendRef and names them all",
			`[{backendRefs: [{name: web, port: 80}, {name: gone, port: 80}]}, {backendRefs: [{kind: Pod, group: "", name: p}]}]`,
			gatewayv1.RouteReasonBackendNotFound, []gatewayv1.RouteConditionReason{"ResolvedRefs", "BackendNotFound", "InvalidKind"}, "shop/gone names a Service that does not exist; backendRef shop/p is a Pod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var route gatewayv1.HTTPRoute
			if err := yaml.UnmarshalStrict([]byte(`{metadata: {name: r, namespace: shop}, spec: {rules: `+tt.rules+`}}`), &route); err != nil {
				t.Fatal(err)
			}
			got, err := ResolveBackendRefs(&route, grants, exists)
			if err != nil {
				t.Fatal(err)
			}
			if got.Reason != tt.wantReason || !strings.Contains(got.Message, tt.wantInMsg) {
				t.Errorf("route: %s %q, want %s containing %q", got.Reason, got.Message, tt.wantReason, tt.wantInMsg)
			}
			var refs []gatewayv1.RouteConditionReason
			for _, b := range got.BackendRefs {
				refs = append(refs, b.Reason)
			}
			if !slices.Equal(refs, tt.wantRefs) {
				t.Errorf("backendRefs: %v, want %v", refs, tt.wantRefs)
			}
		})
	}
}
