package hostile

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/test/testenv"
)

// routeGreetingBlueprint is greetingBlueprint with a template per route, so that the
// values of every route on a Gateway are computed and judged.
const routeGreetingBlueprint = greetingBlueprint + `
httpRouteTemplate:
  resourceTemplates:
  - name: route-config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-on-{{ .Gateway.metadata.name }}}
      data: {greeting: {{ .Values.greeting | quote }}}
`

// The third hostile round (issue 40, item 3): a sum bound charged whoever took part in
// the chain, so that a route owner could make the Gateway owner's and the provider's
// policies Invalid by piling his own on his route.
var _ = Describe("A sum bound charges who exceeded it", func() {
	It("refuses a route whose owner's GatewayConfigs take its chain over 40,000 elements, and leaves the Gateway owner's policy Enforced, naming nothing of his", func(ctx SpecContext) {
		class := newClass(ctx, routeGreetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		bob := newTenant(ctx, "bob", "team-b")
		alice.gateway(ctx, class, "web")
		// Hers is the largest policy of the route's chain, and within every bound with
		// her Gateway's: it used to be named first, and Invalid.
		hers := policyObject(alice.namespace, "hers", "Gateway", "web", map[string]any{
			"default":  map[string]any{"items": numbers(9500)},
			"override": map[string]any{"greeting": "hers"},
		})
		Expect(alice.Create(ctx, hers)).To(Succeed())
		alice.programmed(ctx, "web")

		for i := range 4 {
			Expect(bob.Create(ctx, policyObject(bob.namespace, fmt.Sprintf("bulk-%d", i), "Namespace", bob.namespace, map[string]any{
				"default": map[string]any{fmt.Sprintf("items%d", i): numbers(8000)},
			}))).To(Succeed())
		}
		bob.apply(ctx, class, routeOn("shop", alice.namespace, "web"))

		// The route answers for it on its own status, naming the bound and nothing of
		// the Gateway owner's namespace but her Gateway.
		overBound := MatchRegexp(`more than 40000 elements`)
		Eventually(bob.routeAccepted(ctx, "shop")).WithTimeout(time.Minute).Should(And(HavePrefix("False/"), overBound,
			ContainSubstring("GatewayConfig "+bob.namespace+"/bulk-0"), Not(ContainSubstring("GatewayConfig "+alice.namespace))))
		// So do his policies.
		Eventually(policyAncestors(ctx, bob, "bulk-0")).WithTimeout(time.Minute).Should(ContainElement(And(
			MatchRegexp(`Accepted=False/Invalid: `), overBound, ContainSubstring("the route's own policies"), Not(ContainSubstring("GatewayConfig "+alice.namespace)))))

		// Her policy keeps its verdict on her Gateway, judged anew with his in view.
		bump(ctx, alice, hers, "override", map[string]any{"greeting": "hers, again"})
		Eventually(policyAncestors(ctx, alice, "hers")).WithTimeout(time.Minute).Should(ContainElements(
			HavePrefix("Gateway/web Accepted=True/Accepted"), HavePrefix("Gateway/web Enforced=True/Enforced")))
		Expect(policyAncestors(ctx, alice, "hers")()).To(HaveEach(Not(ContainSubstring(bob.namespace))), "her status names nothing of his namespace")
		// Her Gateway is served with her values.
		Eventually(alice.configMap(ctx, "web-config")).Should(HaveField("Data", HaveKeyWithValue("greeting", "hers, again")))
		alice.programmed(ctx, "web")
	})

	It("keeps the provider's class-wide config and the Gateway owner's policy in their verdicts when 63 one-key GatewayConfigs of a tenant take his route over 64 blocks", func(ctx SpecContext) {
		class := newClass(ctx, routeGreetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		bob := newTenant(ctx, "bob", "team-b")
		classWide := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "gatewright.dev/v1alpha1",
			"kind":       "GatewayClassConfig",
			"metadata":   map[string]any{"name": class + "-wide", "namespace": controllerNamespace},
			"spec": map[string]any{
				"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "GatewayClass", "name": class}},
				"default":    map[string]any{"tier": "standard"},
				"override":   map[string]any{"waf": "on"},
			},
		}}
		Expect(admin.Create(ctx, classWide)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(admin.Delete(ctx, classWide))).To(Succeed()) })
		alice.gateway(ctx, class, "web")
		hers := policyObject(alice.namespace, "hers", "Gateway", "web", map[string]any{
			"default":  map[string]any{"replicas": 2},
			"override": map[string]any{"greeting": "hers"},
		})
		Expect(alice.Create(ctx, hers)).To(Succeed())
		alice.apply(ctx, class, routeOn("local", alice.namespace, "web"))
		alice.programmed(ctx, "web")

		for i := range 63 {
			Expect(bob.Create(ctx, policyObject(bob.namespace, fmt.Sprintf("c%02d", i), "Namespace", bob.namespace, map[string]any{
				"default": map[string]any{fmt.Sprintf("k%02d", i): 1},
			}))).To(Succeed())
		}
		bob.apply(ctx, class, routeOn("shop", alice.namespace, "web"))

		overBound := MatchRegexp(`more than 64 blocks`)
		Eventually(bob.routeAccepted(ctx, "shop")).WithTimeout(time.Minute).Should(And(HavePrefix("False/"), overBound, Not(ContainSubstring("GatewayConfig "+alice.namespace))))
		Eventually(policyAncestors(ctx, bob, "c00")).WithTimeout(time.Minute).Should(ContainElement(And(MatchRegexp(`Accepted=False/Invalid: `), overBound)))

		// Both are judged anew with his route and configs in view.
		bump(ctx, alice, hers, "default", map[string]any{"replicas": int64(3)})
		bump(ctx, admin, classWide, "default", map[string]any{"tier": "premium"})
		Eventually(policyAncestors(ctx, alice, "hers")).WithTimeout(time.Minute).Should(ContainElements(
			HavePrefix("Gateway/web Accepted=True/Accepted"), HavePrefix("Gateway/web Enforced=True/")))
		Expect(policyAncestors(ctx, alice, "hers")()).To(HaveEach(Not(ContainSubstring(bob.namespace))))
		Eventually(func() ([]string, error) {
			config := &gatewrightv1alpha1.GatewayClassConfig{}
			err := admin.Get(ctx, client.ObjectKeyFromObject(classWide), config)
			return testenv.Ancestors(config), err
		}).WithTimeout(time.Minute).Should(ContainElements(
			HavePrefix("GatewayClass/"+class+" Accepted=True/Accepted"), HavePrefix("GatewayClass/"+class+" Enforced=True/")))
		// The Gateway and the other route are served.
		alice.programmed(ctx, "web")
		Eventually(alice.routeAccepted(ctx, "local")).Should(HavePrefix("True/"))
		Eventually(alice.configMap(ctx, "local-on-web")).Should(HaveField("Data", HaveKeyWithValue("greeting", "hers")))
	})
})

// numbers is a list of n numbers.
func numbers(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// routeOn is an HTTPRoute of NAMESPACE attached to Gateway gateway of namespace.
func routeOn(name, namespace, gateway string) string {
	return strings.Replace(routeManifest(name, gateway, nil), "{name: "+gateway+"}", "{name: "+gateway+", namespace: "+namespace+"}", 1)
}

// bump sets field of the spec of policy, as c, so that the policy is judged anew at its
// next generation.
func bump(ctx SpecContext, c client.Client, policy *unstructured.Unstructured, field string, value map[string]any) {
	Eventually(func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(policy), policy); err != nil {
			return err
		}
		Expect(unstructured.SetNestedField(policy.Object, value, "spec", field)).To(Succeed())
		return c.Update(ctx, policy)
	}).Should(Succeed())
}

// routeAccepted returns the Accepted condition of the tenant's route on its Gatewright
// parent as "Status/Reason: message".
func (t *tenant) routeAccepted(ctx SpecContext, name string) func() string {
	return func() string {
		route := &gatewayv1.HTTPRoute{}
		if err := t.Get(ctx, client.ObjectKey{Namespace: t.namespace, Name: name}, route); err != nil {
			return err.Error()
		}
		for _, parent := range route.Status.Parents {
			if parent.ControllerName == gatewrightv1alpha1.ControllerName {
				return testenv.Condition(parent.Conditions, string(gatewayv1.RouteConditionAccepted), route.Generation)
			}
		}
		return "<no parent status>"
	}
}
