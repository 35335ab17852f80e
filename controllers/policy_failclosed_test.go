package controllers_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/test/testenv"
)

var _ = Describe("A provider's condition that a tenant's value makes fail", func() {
	It("applies the provider's block, and says so on the provider's policy and on the Gateway", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {limit: {{ .Values.limits.a.limit | quote }}}
`)
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: clip, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: CLASS}]
  override:
    values: {limits: {a: {limit: 100}}}
    when: self.limits.a.limit > 100
---`+gatewayConfig("web", "Gateway", "web", `default: {limits: {a: {limit: "500"}}}`))
		w.gateway(ctx, "web")

		// CEL has no string > int: the clip would be skipped if a failure counted as false.
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("limit"), Equal("100")))
		failedClosed := ContainSubstring("spec.override.when: no such overload; its override applied (a condition that cannot be evaluated fails closed)")
		Eventually(w.gatewayCondition(ctx, "web", gatewrightv1alpha1.ConditionGatewayClassConfigAffected)).Should(failedClosed)
		Eventually(func() string {
			gcc := &gatewrightv1alpha1.GatewayClassConfig{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "clip"}, gcc); err != nil || len(gcc.Status.Ancestors) == 0 {
				return "<no ancestors>"
			}
			return testenv.Condition(gcc.Status.Ancestors[0].Conditions, "Enforced", gcc.Generation)
		}).Should(And(HavePrefix("True/PartiallyEnforced: "), ContainSubstring("the when of its override could not be evaluated, so the override applies (fails closed): spec.override.when: no such overload")))
	})
})

var _ = Describe("Events on a policy", func() {
	It("say when a target's verdict changes state, once per change", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		w.gateway(ctx, "web")
		w.apply(ctx, gatewayConfig("web", "Gateway", "web", `default: {values: {greeting: hi}, when: "self.greeting >"}`))
		invalid := MatchRegexp(`^Invalid: Gateway/web: .*spec.default.when: does not compile`)
		Eventually(w.events(ctx, "GatewayConfig", "web")).Should(ContainElement(invalid))

		w.apply(ctx, gatewayConfig("web", "Gateway", "web", `default: {greeting: hi}`))
		Eventually(w.events(ctx, "GatewayConfig", "web")).Should(ConsistOf(
			invalid, "Accepted: Gateway/web: ", "Programmed: Gateway/web: in effect on every Gateway and route it reaches",
		))
		Consistently(w.events(ctx, "GatewayConfig", "web")).Should(HaveLen(3), "no event without a change of state")
	})
})
