package translate_test

import (
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// TestVerdictsOfARouteOverASumBound is issue 40, item 3, as the policies' statuses
// say it: 63 one-key GatewayConfigs of team-b take its route's chain on team-a's
// Gateway over 64 blocks. The route owner's policies answer for it; the Gateway
// owner's and the provider's keep their verdicts, and say nothing of team-b.
func TestVerdictsOfARouteOverASumBound(t *testing.T) {
	block := func(raw string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(raw)} }
	in := values.Inputs{
		ControllerNamespace: "gatewright-system",
		Blueprint:           &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}},
		GatewayClassConfigs: []gatewrightv1alpha1.GatewayClassConfig{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "gatewright-system", Name: "class-wide"},
			Spec: gatewrightv1alpha1.GatewayClassConfigSpec{
				TargetRefs:           []gatewayv1.LocalPolicyTargetReference{{Group: gatewayv1.GroupName, Kind: "GatewayClass", Name: "internet"}},
				DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: block(`{"size": "small"}`), Override: block(`{"waf": "on"}`)},
			},
		}},
		GatewayConfigs: []gatewrightv1alpha1.GatewayConfig{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "hers"},
			Spec: gatewrightv1alpha1.GatewayConfigSpec{
				TargetRefs:           []gatewayv1.LocalPolicyTargetReference{{Group: gatewayv1.GroupName, Kind: "Gateway", Name: "web"}},
				DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: block(`{"replicas": 2}`)},
			},
		}},
	}
	for i := range 63 {
		in.GatewayConfigs = append(in.GatewayConfigs, gatewrightv1alpha1.GatewayConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: fmt.Sprintf("c%02d", i)},
			Spec: gatewrightv1alpha1.GatewayConfigSpec{
				TargetRefs:           []gatewayv1.LocalPolicyTargetReference{{Kind: "Namespace", Name: "team-b"}},
				DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: block(fmt.Sprintf(`{"k%02d": 1}`, i))},
			},
		})
	}
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "internet"}}
	shop := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "shop"}}
	local := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "local"}}
	contexts := map[string]*translate.Result{}
	for name, route := range map[string]*gatewayv1.HTTPRoute{"Gateway team-a/web": nil, "HTTPRoute team-b/shop on Gateway team-a/web": shop, "HTTPRoute team-a/local on Gateway team-a/web": local} {
		res := &translate.Result{}
		if route == nil {
			res.Values, res.Err = in.ForGateway(gw)
		} else {
			res.Values, res.Err = in.ForRoute(gw, route)
		}
		contexts[name] = res
	}
	if err := contexts["HTTPRoute team-b/shop on Gateway team-a/web"].Err; err == nil {
		t.Fatal("the route's chain is within its bounds")
	}
	judge := func(kind, namespace, name string) translate.Verdict {
		e := translate.NewEnforcement(values.Source{Kind: kind, Namespace: namespace, Name: name})
		for context, res := range contexts {
			e.Add(context, res)
		}
		return e.Verdict()
	}

	for _, keeps := range []struct{ kind, namespace, name string }{
		{gatewrightv1alpha1.KindGatewayConfig, "team-a", "hers"},
		{gatewrightv1alpha1.KindGatewayClassConfig, "gatewright-system", "class-wide"},
	} {
		v := judge(keeps.kind, keeps.namespace, keeps.name)
		if !v.OK || v.Reason != translate.ReasonEnforced {
			t.Errorf("%s %s/%s: %+v, want Enforced", keeps.kind, keeps.namespace, keeps.name, v)
		}
		if strings.Contains(v.Message, "team-b") {
			t.Errorf("%s %s/%s names team-b: %s", keeps.kind, keeps.namespace, keeps.name, v.Message)
		}
	}
	charged := judge(gatewrightv1alpha1.KindGatewayConfig, "team-b", "c00")
	if charged.OK || charged.Reason != string(gatewayv1.PolicyReasonInvalid) ||
		!strings.Contains(charged.Message, "more than 64 blocks") || !strings.Contains(charged.Message, "GatewayConfig team-b/c00 (1)") {
		t.Errorf("c00: %+v, want Invalid naming the bound and its own", charged)
	}
	if strings.Contains(charged.Message, "hers") || strings.Contains(charged.Message, "GatewayConfig team-a/") {
		t.Errorf("c00's status names the Gateway owner's policy: %s", charged.Message)
	}
	if blocked := judge(gatewrightv1alpha1.KindGatewayConfig, "team-b", "c62"); blocked.OK || blocked.Reason != translate.ReasonPending {
		t.Errorf("c62: %+v, want Pending: not in effect", blocked)
	}
}
