package controllers_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routes"
)

// conflictBlueprint serves HTTPRoutes and GRPCRoutes and lists those its gateway
// templates see.
const conflictBlueprint = `
serves:
  routeKinds: [HTTPRoute, GRPCRoute]
gatewayTemplate:
  resourceTemplates:
  - name: routes
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-routes}
      data:
        http: "{{ range .HTTPRoutes }}{{ .metadata.name }} {{ end }}"
        grpc: "{{ range .GRPCRoutes }}{{ .metadata.name }} {{ end }}"
`

var _ = Describe("HTTPRoutes and GRPCRoutes sharing a hostname", func() {
	It("accepts the older of an HTTPRoute and a GRPCRoute sharing a hostname on a listener, and the newer once the older goes", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, conflictBlueprint)
		w.gatewayWithListeners(ctx, "edge", `- {name: http, protocol: HTTP, port: 80}`)
		Eventually(w.gatewayCondition(ctx, "edge", "Programmed")).Should(HavePrefix("True/"))
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge}]
  hostnames: [api.example.com]
`)
		Eventually(w.routeParentsOf(ctx, routes.KindHTTPRoute, "web")).Should(ConsistOf(HavePrefix("edge: True/Accepted: ")))

		By("a newer GRPCRoute of the same hostname")
		time.Sleep(1100 * time.Millisecond) // creation timestamps count whole seconds: "web" is older
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: rpc, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge}]
  hostnames: [api.example.com]
`)
		Eventually(w.routeParentsOf(ctx, routes.KindGRPCRoute, "rpc")).Should(ConsistOf(
			HavePrefix("edge: False/HostnameConflict: HTTPRoute " + w.namespace + "/web, older, serves hostname api.example.com on listener http too")))
		Consistently(w.routeParentsOf(ctx, routes.KindHTTPRoute, "web"), "2s").Should(ConsistOf(HavePrefix("edge: True/Accepted: ")))
		Eventually(w.configMap(ctx, "edge-routes")).Should(And(
			WithTransform(configMapData("http"), Equal("web ")), WithTransform(configMapData("grpc"), Equal(""))))

		By("the HTTPRoute taking another hostname, then the shared one again: the GRPCRoute follows")
		hostnames := func(name gatewayv1.Hostname) {
			// The route's status writes bump its resourceVersion: read it again on a conflict.
			Eventually(func() error {
				web := &gatewayv1.HTTPRoute{}
				if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "web"}, web); err != nil {
					return err
				}
				web.Spec.Hostnames = []gatewayv1.Hostname{name}
				return k8s.Update(ctx, web)
			}).Should(Succeed())
		}
		hostnames("www.example.com")
		Eventually(w.routeParentsOf(ctx, routes.KindGRPCRoute, "rpc")).Should(ConsistOf(HavePrefix("edge: True/Accepted: ")))
		hostnames("*.example.com")
		Eventually(w.routeParentsOf(ctx, routes.KindGRPCRoute, "rpc")).Should(ConsistOf(
			HavePrefix("edge: False/HostnameConflict: HTTPRoute " + w.namespace + "/web, older, serves hostname api.example.com on listener http too")))

		By("the HTTPRoute leaving: the GRPCRoute is accepted and served")
		Expect(k8s.Delete(ctx, &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: "web"}})).To(Succeed())
		Eventually(w.routeParentsOf(ctx, routes.KindGRPCRoute, "rpc")).Should(ConsistOf(HavePrefix("edge: True/Accepted: ")))
		Eventually(w.configMap(ctx, "edge-routes")).Should(And(
			WithTransform(configMapData("http"), Equal("")), WithTransform(configMapData("grpc"), Equal("rpc "))))
	})
})
