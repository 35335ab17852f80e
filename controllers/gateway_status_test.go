package controllers_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var _ = Describe("Gateway status bounds", func() {
	It("says Programmed=False, in at most 4 KiB, when a tenant's value too long to quote breaks the valuesSchema", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint+`
valuesSchema:
  type: object
  properties:
    greeting: {type: string, maxLength: 64}
`)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))

		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {greeting: `+strings.Repeat("x", 40000)+`}
`)
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix(
			"False/Invalid: values do not match the valuesSchema of GatewayClassBlueprint " + w.blueprint + ": greeting: should be at most 64 chars long, got \"xxx"))
		programmed := meta.FindStatusCondition(w.getGateway(ctx, "web").Status.Conditions, "Programmed")
		Expect(len(programmed.Message)).To(BeNumerically("<=", 4096))
		Expect(programmed.Message).To(ContainSubstring(`"... (40000 bytes)`), "the value is quoted by its beginning only")
		Expect(programmed.Status).To(Equal(metav1.ConditionFalse))
	})
})
