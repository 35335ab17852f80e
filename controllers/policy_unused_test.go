package controllers_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// replicasBlueprint renders a ConfigMap holding .Values.replicas.
const replicasBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {replicas: {{ .Values.replicas | default 3 | quote }}}
`

var _ = Describe("Unused values", func() {
	It("names a value no template reads on the policy that set it, with the key it resembles", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, replicasBlueprint)
		w.gateway(ctx, "web")
		w.apply(ctx, gatewayConfig("typo", "Gateway", "web", "default: {replica: 4}"))

		Eventually(w.enforced(ctx, "typo")).Should(Equal("True/Enforced: in effect on every Gateway and route it reaches; " +
			"not read by GatewayClassBlueprint " + w.blueprint + ": replica (did you mean replicas?)"))
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("replicas"), Equal("3")))
	})

	It("names the Gateway a policy's missing target resembles", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, replicasBlueprint)
		w.gateway(ctx, "web")
		w.apply(ctx, gatewayConfig("misnamed", "Gateway", "wbe", "default: {replicas: 4}"))

		misnamed := &gatewrightv1alpha1.GatewayConfig{}
		misnamed.Namespace, misnamed.Name = w.namespace, "misnamed"
		Eventually(ancestors(ctx, misnamed)).Should(ContainElement(
			"Gateway/wbe Accepted=False/TargetNotFound: no Gateway wbe in namespace " + w.namespace + " (did you mean web?)"))
	})
})
