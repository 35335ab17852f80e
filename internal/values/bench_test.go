package values_test

import (
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// nestedValues returns 200 leaves four levels deep (g*.s*.t*.leaf*), every value
// marked with who set it.
func nestedValues(owner string) map[string]any {
	root := map[string]any{}
	for i := range 200 {
		path := []string{fmt.Sprintf("g%d", i/50), fmt.Sprintf("s%d", i/10%5), fmt.Sprintf("t%d", i/2%5)}
		node := root
		for _, key := range path {
			child, ok := node[key].(map[string]any)
			if !ok {
				child = map[string]any{}
				node[key] = child
			}
			node = child
		}
		node[fmt.Sprintf("leaf%d", i)] = owner
	}
	return root
}

// BenchmarkMerge computes the values of an HTTPRoute through six levels of three
// policies each (levels 2-6 and 8) plus the blueprint, every half 200 keys 4 deep, in
// the shorthand (Patch), and again with every half a Merge block whose condition holds.
// JSON decoding of the policies is part of the measurement, as in the controller.
func BenchmarkMerge(b *testing.B) {
	for _, form := range []string{"shorthand", "merge-when"} {
		b.Run(form, func(b *testing.B) {
			half := func(owner string) *apiextensionsv1.JSON {
				if form == "shorthand" {
					return rawJSON(nestedValues(owner))
				}
				return rawJSON(map[string]any{"values": nestedValues(owner), "strategy": "Merge", "when": "size(self) < 100"})
			}
			s := newScenario(nil)
			s.in.GatewayClassConfigs, s.in.GatewayConfigs = nil, nil
			s.in.Blueprint.Spec.Values = &gatewrightv1alpha1.DefaultsAndOverrides{Default: half("bp"), Override: half("bp")}
			for _, level := range []values.Level{2, 3, 4, 5, 6, 8} {
				for i := range 3 {
					name := fmt.Sprintf("l%d-p%d", level, i)
					s.add(level, objectMeta("", name, 1+i%2), gatewrightv1alpha1.DefaultsAndOverrides{Default: half(name), Override: half(name)})
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				res, err := s.in.ForRoute(s.gateway, s.route)
				if err != nil || len(res.Provenance) < 200 {
					b.Fatalf("err %v, %d leaves", err, len(res.Provenance))
				}
			}
		})
	}
}

// BenchmarkDeepValues computes the values of a Gateway whose blueprint and tenant both
// set a chain of objects as deep as the bounds allow, and shallower ones: the cost per
// level stays flat, as the walks no longer copy the path at every level.
func BenchmarkDeepValues(b *testing.B) {
	for _, depth := range []int{8, 16, 32, values.MaxDepth} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			in, gw, _ := blockInputs(values.LevelGateway, "web", values.Default, nested(depth))
			in.Blueprint.Spec.Values = &gatewrightv1alpha1.DefaultsAndOverrides{Default: rawJSON(map[string]any{"b": 1}), Override: in.GatewayConfigs[0].Spec.Default}
			b.ReportAllocs()
			for b.Loop() {
				res, err := in.ForGateway(gw)
				if err != nil || len(res.Provenance) != 2 {
					b.Fatalf("err %v, %d leaves", err, len(res.Provenance))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(depth), "ns/level")
		})
	}
}

// BenchmarkJudgement computes the values of 1,000 Gateways spread over 10 namespaces,
// with the policies of the bench workload (a blueprint default, one global override, one
// default per namespace) and one Inputs per namespace, as the policy reconciler does in
// one judgement of the global policy: per-gateway computes every Gateway, per-chain
// computes each distinct chain once and looks the others up by ChainKey.
func BenchmarkJudgement(b *testing.B) {
	const gateways, namespaces = 1000, 10
	class := targetRef(gatewayv1.GroupName, "GatewayClass", "internet")
	global := classConfig(controllerNamespace, "global", class, gatewrightv1alpha1.DefaultsAndOverrides{Override: jsonBlock(`{"labels": {"managed": "platform"}}`)})
	blueprint := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"},
		Spec: gatewrightv1alpha1.GatewayClassBlueprintSpec{Values: &gatewrightv1alpha1.DefaultsAndOverrides{
			Default: jsonBlock(`{"replicas": 2, "image": "envoyproxy/envoy:v1.36.2", "labels": {"tier": "bench"}}`)}}}
	inputs := map[string]*values.Inputs{}
	for i := range namespaces {
		ns := fmt.Sprintf("tenant-%d", i)
		inputs[ns] = &values.Inputs{
			ControllerNamespace: controllerNamespace,
			Blueprint:           blueprint,
			GatewayClassConfigs: []gatewrightv1alpha1.GatewayClassConfig{global},
			GatewayConfigs: []gatewrightv1alpha1.GatewayConfig{tenantConfig(ns, "team",
				[]gatewayv1.LocalPolicyTargetReference{targetRef("", "Namespace", ns)},
				gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(fmt.Sprintf(`{"labels": {"team": %q}}`, ns))})},
		}
	}
	all := make([]*gatewayv1.Gateway, gateways)
	for i := range all {
		all[i] = chainKeyGateway(fmt.Sprintf("tenant-%d", i%namespaces), fmt.Sprintf("gw-%d", i), "")
	}
	check := func(res *values.Result, err error) {
		if err != nil || len(res.Provenance) != 5 {
			b.Fatalf("err %v, %d leaves", err, len(res.Provenance))
		}
	}

	b.Run("per-gateway", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, gw := range all {
				check(inputs[gw.Namespace].ForGateway(gw))
			}
		}
	})
	b.Run("per-chain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			computed := map[*values.Inputs]map[string]*values.Result{}
			for _, gw := range all {
				in := inputs[gw.Namespace]
				key, err := in.ChainKey(gw, nil)
				if err != nil {
					b.Fatal(err)
				}
				res, seen := computed[in][key]
				if !seen {
					res, err = in.ForGateway(gw)
					check(res, err)
					if computed[in] == nil {
						computed[in] = map[string]*values.Result{}
					}
					computed[in][key] = res
				}
				check(res, nil)
			}
		}
	})
}
