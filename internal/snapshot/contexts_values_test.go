package snapshot

import (
	"errors"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/values"
)

// TestContextValuesComputeEachChainOnce checks that a judgement computes the values of
// each distinct chain once and hands every context what the values engine would.
func TestContextValuesComputeEachChainOnce(t *testing.T) {
	block := func(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }
	target := func(group, kind, name string) []gatewayv1.LocalPolicyTargetReference {
		return []gatewayv1.LocalPolicyTargetReference{{Group: gatewayv1.Group(group), Kind: gatewayv1.Kind(kind), Name: gatewayv1.ObjectName(name)}}
	}
	v := &chainInputs{Inputs: values.Inputs{
		ControllerNamespace: "gatewright-system",
		Blueprint: &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"},
			Spec: gatewrightv1alpha1.GatewayClassBlueprintSpec{Values: &gatewrightv1alpha1.DefaultsAndOverrides{Default: block(`{"color": "none"}`)}}},
		GatewayClassConfigs: []gatewrightv1alpha1.GatewayClassConfig{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "gatewright-system", Name: "global"},
			Spec: gatewrightv1alpha1.GatewayClassConfigSpec{TargetRefs: target(gatewayv1.GroupName, "GatewayClass", "internet"),
				DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Override: block(`{"tier": "gold"}`)}},
		}},
		GatewayConfigs: []gatewrightv1alpha1.GatewayConfig{
			{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "team"},
				Spec: gatewrightv1alpha1.GatewayConfigSpec{TargetRefs: target("", "Namespace", "team-a"),
					DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: block(`{"color": "blue", "tier": "silver"}`)}}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "own"},
				Spec: gatewrightv1alpha1.GatewayConfigSpec{TargetRefs: target(gatewayv1.GroupName, "Gateway", "own"),
					DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: block(`{"color": "red"}`)}}},
		},
	}, blueprints: &render.Cache{}}
	gateway := func(name string) *gatewayv1.Gateway {
		return &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "internet"}}
	}
	a, b, own := gateway("a"), gateway("b"), gateway("own")
	broken := gateway("broken")
	broken.Spec.Infrastructure = &gatewayv1.GatewayInfrastructure{ParametersRef: &gatewayv1.LocalParametersReference{
		Group: gatewayv1.Group(gatewrightv1alpha1.GroupVersion.Group), Kind: gatewrightv1alpha1.KindGatewayConfig, Name: "missing"}}
	route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "shop"}}
	contexts := []Context{{Gateway: a}, {Gateway: b}, {Gateway: own}, {Gateway: a, Route: route}, {Gateway: own, Route: route}, {Gateway: broken}}

	results := map[string]*values.Result{}
	for _, c := range contexts {
		got := v.compute(c)
		want, wantErr := v.ForGateway(c.Gateway)
		if c.Route != nil {
			want, wantErr = v.ForRoute(c.Gateway, c.Route)
		}
		if !reflect.DeepEqual(got.Values, want) || !reflect.DeepEqual(got.Err, wantErr) {
			t.Errorf("%s: got %+v, %v; want %+v, %v", c, got.Values, got.Err, want, wantErr)
		}
		results[c.String()] = got.Values
	}

	// a, b and the route on a take the same policies; own and the route on own take
	// those and own's. A Result computed again is a new one.
	same := func(x, y string) bool { return results[x] == results[y] }
	if !same("Gateway team-a/a", "Gateway team-a/b") || !same("Gateway team-a/a", "HTTPRoute team-a/shop on Gateway team-a/a") ||
		!same("Gateway team-a/own", "HTTPRoute team-a/shop on Gateway team-a/own") {
		t.Error("contexts of one chain were computed again")
	}
	if same("Gateway team-a/a", "Gateway team-a/own") {
		t.Error("a Gateway its own GatewayConfig targets shares the values of the others")
	}
	if len(v.computed) != 2 {
		t.Errorf("%d chains computed, want 2", len(v.computed))
	}
	var refErr *values.ParametersRefError
	if err := v.compute(Context{Gateway: broken}).Err; !errors.As(err, &refErr) {
		t.Errorf("a Gateway with a broken parametersRef: got %v, want a *ParametersRefError", err)
	}
}
