package controllers_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// sharedNameBlueprint renders, for every Gateway and every route, an object of the same
// name: the second owner of a namespace is refused it.
const sharedNameBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: shared-config}
      data: {gateway: {{ .Gateway.metadata.name | quote }}}
httpRouteTemplate:
  resourceTemplates:
  - name: route-config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: shared-route-config}
      data: {route: {{ .HTTPRoute.metadata.name | quote }}}
`

// sooner than the first safety-net requeue of a refused owner (30 s): an owner served
// within it was brought back by the name being let go.
const soonerThanTheRequeue = 20 * time.Second

var _ = Describe("An owner refused a name another owner holds", func() {
	var w world
	BeforeEach(func(ctx SpecContext) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, sharedNameBlueprint)
		Eventually(w.classCondition(ctx)).Should(HavePrefix("True/Accepted"))
	})

	It("is a Gateway served once the other Gateway is gone, without a change of its own", func(ctx SpecContext) {
		w.gateway(ctx, "first")
		Eventually(w.gatewayCondition(ctx, "first", "Programmed")).Should(HavePrefix("True/Programmed"))
		w.gateway(ctx, "second")
		Eventually(w.gatewayCondition(ctx, "second", "Programmed")).Should(ContainSubstring("ConfigMap " + w.namespace + "/shared-config exists and is not managed by Gatewright for Gateway " + w.namespace + "/second"))
		generation := w.getGateway(ctx, "second").Generation

		Expect(k8s.Delete(ctx, w.getGateway(ctx, "first"))).To(Succeed())
		Eventually(w.gatewayCondition(ctx, "second", "Programmed"), soonerThanTheRequeue).Should(HavePrefix("True/Programmed"))
		Expect(w.configMap(ctx, "shared-config")()).To(WithTransform(configMapData("gateway"), Equal("second")))
		Expect(w.getGateway(ctx, "second").Generation).To(Equal(generation), "the refused Gateway was not touched")
	})

	It("is a route served once the other route is gone, without a change of its own", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		w.route(ctx, w.namespace, "first", w.namespace)
		Eventually(w.routeParents(ctx, w.namespace, "first")).Should(ConsistOf(HavePrefix("web: True/Accepted")))
		w.route(ctx, w.namespace, "second", w.namespace)
		Eventually(w.routeParents(ctx, w.namespace, "second")).Should(ConsistOf(ContainSubstring("shared-route-config exists and is not managed by Gatewright")))

		Expect(k8s.Delete(ctx, &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: "first"}})).To(Succeed())
		Eventually(w.routeParents(ctx, w.namespace, "second"), soonerThanTheRequeue).Should(ConsistOf(HavePrefix("web: True/Accepted")))
		Expect(w.configMap(ctx, "shared-route-config")()).To(WithTransform(configMapData("route"), Equal("second")))
	})
})
