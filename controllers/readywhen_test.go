package controllers_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// flagBlueprint renders a ConfigMap that is ready when someone else says so in its
// data (readyWhen: kstatus would call it ready at once), and an app that depends on it.
const flagBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: flag
    readyWhen: self.?data.?ready.orValue('') == 'true'
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-flag}
      data: {owner: gatewright}
  - name: app
    dependsOn: [flag]
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-app}
`

var _ = Describe("readyWhen", func() {
	It("holds a dependsOn template back until the object says it is ready, and Programmed says what waits", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, flagBlueprint)
		Eventually(w.classCondition(ctx)).Should(HavePrefix("True/Accepted"))
		w.gateway(ctx, "web")

		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(Equal(
			"False/Pending: waiting: template app is waiting for flag; ConfigMap " + w.namespace + "/web-flag: readyWhen is false"))
		_, err := w.configMap(ctx, "web-app")()
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the app rendered before its dependency was ready: %v", err)

		flag, err := w.configMap(ctx, "web-flag")()
		Expect(err).NotTo(HaveOccurred())
		Expect(k8s.Patch(ctx, flag, client.RawPatch(client.Merge.Type(), []byte(`{"data":{"ready":"true"}}`)), client.FieldOwner("test"))).To(Succeed())

		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(Equal("True/Programmed: 2 object(s) applied and ready"))
		Eventually(w.configMap(ctx, "web-app")).Should(HaveField("Name", "web-app"))
	})

	It("judges an object by the template Gatewright recorded, whatever labels a tenant puts on it", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, flagBlueprint)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("False/Pending: "))

		By("the tenant labelling the flag as a route's object, and as another template's")
		flag, err := w.configMap(ctx, "web-flag")()
		Expect(err).NotTo(HaveOccurred())
		Expect(k8s.Patch(ctx, flag, client.RawPatch(client.Merge.Type(),
			[]byte(`{"metadata":{"labels":{"gatewright.dev/httproute-name":"mine","gatewright.dev/template":"app"}}}`)), client.FieldOwner("tenant"))).To(Succeed())
		Consistently(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("False/Pending: "), "kstatus, which calls any ConfigMap ready, judged the flag")
		_, err = w.configMap(ctx, "web-app")()
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the app rendered before its dependency was ready: %v", err)
	})

	It("leaves a blueprint whose readyWhen does not compile not accepted, naming the template", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, strings.Replace(flagBlueprint, "orValue('') == 'true'", "orValue('') = 'true'", 1))
		Eventually(w.blueprintCondition(ctx)).Should(HavePrefix("False/InvalidTemplates: GatewayClassBlueprint " + w.blueprint + ", template gateway/flag: readyWhen does not compile"))
	})
})
