package values_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/values"
)

func jsonBlock(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }

func targetRef(group, kind, name string) gatewayv1.LocalPolicyTargetReference {
	return gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.Group(group), Kind: gatewayv1.Kind(kind), Name: gatewayv1.ObjectName(name)}
}

func classConfig(namespace, name string, target gatewayv1.LocalPolicyTargetReference, dao gatewrightv1alpha1.DefaultsAndOverrides) gatewrightv1alpha1.GatewayClassConfig {
	return gatewrightv1alpha1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: gatewrightv1alpha1.GatewayClassConfigSpec{TargetRefs: []gatewayv1.LocalPolicyTargetReference{target}, DefaultsAndOverrides: dao}}
}

func tenantConfig(namespace, name string, targets []gatewayv1.LocalPolicyTargetReference, dao gatewrightv1alpha1.DefaultsAndOverrides) gatewrightv1alpha1.GatewayConfig {
	return gatewrightv1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: gatewrightv1alpha1.GatewayConfigSpec{TargetRefs: targets, DefaultsAndOverrides: dao}}
}

// chainKeyInputs is a provider with a global override and a blueprint with a
// valuesSchema, and tenants whose policies reach the Gateways of team-0 to team-2 in
// different ways: team-0's namespace default breaks the schema, team-1's is partly
// overridden and has a condition, team-0 has a Gateway of its own policy and team-1
// a GatewayConfig that a Gateway names in its parametersRef; team-3 has routes only.
func chainKeyInputs(t testing.TB) values.Inputs {
	schema := `{"type": "object", "properties": {"replicas": {"type": "integer", "maximum": 5}}}`
	class := targetRef(gatewayv1.GroupName, "GatewayClass", "internet")
	namespace := func(ns string) []gatewayv1.LocalPolicyTargetReference {
		return []gatewayv1.LocalPolicyTargetReference{targetRef("", "Namespace", ns)}
	}
	in := values.Inputs{
		ControllerNamespace: controllerNamespace,
		Blueprint: &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"},
			Spec: gatewrightv1alpha1.GatewayClassBlueprintSpec{
				Values:       &gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"replicas": 1, "tier": "base", "color": "none"}`)},
				ValuesSchema: jsonBlock(schema),
			}},
		GatewayClassConfigs: []gatewrightv1alpha1.GatewayClassConfig{
			classConfig(controllerNamespace, "global", class, gatewrightv1alpha1.DefaultsAndOverrides{Override: jsonBlock(`{"tier": "gold"}`)}),
			classConfig("team-3", "provider", targetRef("", "Namespace", "team-3"), gatewrightv1alpha1.DefaultsAndOverrides{Override: jsonBlock(`{"color": "grey"}`)}),
		},
		GatewayConfigs: []gatewrightv1alpha1.GatewayConfig{
			tenantConfig("team-0", "namespace", namespace("team-0"), gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"replicas": 9}`)}),
			tenantConfig("team-1", "namespace", namespace("team-1"), gatewrightv1alpha1.DefaultsAndOverrides{
				Default: jsonBlock(`{"values": {"replicas": 2, "tier": "silver"}, "when": "!has(self.replicas)"}`)}),
			tenantConfig("team-0", "special", []gatewayv1.LocalPolicyTargetReference{targetRef(gatewayv1.GroupName, "Gateway", "special")},
				gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"replicas": 3}`)}),
			tenantConfig("team-1", "named", nil, gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"color": "red"}`)}),
			tenantConfig("team-2", "shop", []gatewayv1.LocalPolicyTargetReference{targetRef(gatewayv1.GroupName, "HTTPRoute", "shop")},
				gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"color": "blue"}`)}),
			tenantConfig("team-3", "namespace", namespace("team-3"), gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"color": "green"}`)}),
		},
	}
	compiled, err := values.CompileSchema(jsonBlock(schema))
	if err != nil {
		t.Fatal(err)
	}
	in.Schema = compiled
	return in
}

// chainKeyGateway is a Gateway of class internet; its labels and listeners, which the
// values must not depend on, differ with the name.
func chainKeyGateway(namespace, name, parametersRef string) *gatewayv1.Gateway {
	gw := &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"name": name}},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: "internet", Listeners: []gatewayv1.Listener{
			{Name: gatewayv1.SectionName(name), Protocol: gatewayv1.HTTPProtocolType, Port: gatewayv1.PortNumber(8000 + len(name))},
		}},
	}
	if parametersRef != "" {
		gw.Spec.Infrastructure = &gatewayv1.GatewayInfrastructure{ParametersRef: &gatewayv1.LocalParametersReference{
			Group: gatewayv1.Group(gatewrightv1alpha1.GroupVersion.Group), Kind: gatewrightv1alpha1.KindGatewayConfig, Name: parametersRef}}
	}
	return gw
}

func chainKeyRoute(namespace, name string) *gatewayv1.HTTPRoute {
	return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

// TestChainKeyNamesTheResult checks that Gateways and routes whose chains hold the same
// policies at the same levels get the same key and the same Result, that the key tells
// apart the chains that differ, and that it fails as ForGateway does.
func TestChainKeyNamesTheResult(t *testing.T) {
	in := chainKeyInputs(t)
	type valuesContext struct {
		gateway *gatewayv1.Gateway
		route   *gatewayv1.HTTPRoute
	}
	var contexts []valuesContext
	for i := range 12 {
		contexts = append(contexts, valuesContext{gateway: chainKeyGateway(fmt.Sprintf("team-%d", i%3), fmt.Sprintf("gw-%d", i), "")})
	}
	special := chainKeyGateway("team-0", "special", "")
	referencing := chainKeyGateway("team-1", "referencing", "named")
	contexts = append(contexts, valuesContext{gateway: special}, valuesContext{gateway: referencing})
	for _, gw := range []*gatewayv1.Gateway{contexts[0].gateway, contexts[2].gateway, special} {
		for _, route := range []*gatewayv1.HTTPRoute{
			chainKeyRoute(gw.Namespace, "local"), chainKeyRoute("team-2", "shop"), chainKeyRoute("team-2", "other"), chainKeyRoute("team-3", "shop"),
		} {
			contexts = append(contexts, valuesContext{gateway: gw, route: route})
		}
	}

	type computed struct {
		context string
		result  *values.Result
		err     error
	}
	byKey := map[string]computed{}
	keyOf := map[valuesContext]string{}
	for _, c := range contexts {
		name := c.gateway.Namespace + "/" + c.gateway.Name
		var got computed
		if c.route == nil {
			got.result, got.err = in.ForGateway(c.gateway)
		} else {
			name = c.route.Namespace + "/" + c.route.Name + " on " + name
			got.result, got.err = in.ForRoute(c.gateway, c.route)
		}
		got.context = name
		var route routes.Route // nil, not a nil *HTTPRoute, for the Gateway's own chain
		if c.route != nil {
			route = c.route
		}
		key, err := in.ChainKey(c.gateway, route)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		keyOf[c] = key
		first, seen := byKey[key]
		if !seen {
			byKey[key] = got
			continue
		}
		if !reflect.DeepEqual(first.result, got.result) || !reflect.DeepEqual(first.err, got.err) {
			t.Errorf("%s and %s share the key %q but not the values:\n%+v, %v\n%+v, %v",
				first.context, got.context, key, first.result, first.err, got.result, got.err)
		}
	}

	// Gateways: one chain per namespace, special and referencing. Routes on gw-0, gw-2
	// and special: local and team-2/other add nothing to their Gateway's chain,
	// team-2/shop adds its own policy and team-3/shop team-3's.
	const wantKeys = 3 + 2 + 3*2
	if len(byKey) != wantKeys {
		t.Errorf("%d distinct keys, want %d:", len(byKey), wantKeys)
		for key, c := range byKey {
			t.Logf("%s: %s", c.context, key)
		}
	}
	for _, c := range []computed{byKey[keyOf[contexts[0]]], byKey[keyOf[contexts[1]]]} {
		var schemaErr *values.SchemaError
		if c.result == nil || (c.context == "team-0/gw-0") != errors.As(c.err, &schemaErr) {
			t.Errorf("%s: got %v; only team-0's Gateways break the valuesSchema", c.context, c.err)
		}
	}
	plain := keyOf[contexts[0]]
	if keyOf[valuesContext{gateway: special}] == plain {
		t.Errorf("a Gateway its own GatewayConfig targets has the key of a plain one: %q", plain)
	}
	if keyOf[valuesContext{gateway: referencing}] == keyOf[contexts[1]] {
		t.Errorf("a Gateway that names a GatewayConfig has the key of a plain one: %q", keyOf[contexts[1]])
	}

	missing := chainKeyGateway("team-0", "missing", "nowhere")
	_, keyErr := in.ChainKey(missing, nil)
	_, computeErr := in.ForGateway(missing)
	var refErr *values.ParametersRefError
	if !errors.As(keyErr, &refErr) || !reflect.DeepEqual(keyErr, computeErr) {
		t.Errorf("a parametersRef to a missing config: ChainKey fails with %v, ForGateway with %v", keyErr, computeErr)
	}
}
