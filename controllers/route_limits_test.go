package controllers_test

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routing"
)

var suiteRouteLimits = routing.Limits{Bytes: 256 << 10}

// largeRoute is an HTTPRoute on web of about 300 KiB: 8 matches of 16 headers of 2 KiB.
func largeRoute(namespace, name, gatewayNamespace string) string {
	var headers []string
	for i := range 16 {
		headers = append(headers, fmt.Sprintf("{name: x-h%d, value: %s}", i, strings.Repeat("v", 2048)))
	}
	var matches []string
	for i := range 8 {
		matches = append(matches, fmt.Sprintf("{path: {value: /m%d}, headers: [%s]}", i, strings.Join(headers, ", ")))
	}
	return `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ` + name + `, namespace: ` + namespace + `}
spec:
  parentRefs: [{name: web, namespace: ` + gatewayNamespace + `}]
  rules: [{matches: [` + strings.Join(matches, ", ") + `]}]
`
}

var _ = Describe("Routes past a Gateway-wide bound", func() {
	It("refuses the newest route past the bound on its own status, and serves the rest", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, routeBlueprint)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		w.route(ctx, w.namespace, "own", w.namespace)
		Eventually(w.routeParents(ctx, w.namespace, "own")).Should(Equal([]string{"web: True/Accepted: "}))

		By("another namespace attaching a route that passes the bound")
		time.Sleep(1100 * time.Millisecond) // creation timestamps count whole seconds: "own" is older
		other := newWorld(ctx).namespace
		w.apply(ctx, largeRoute(other, "large", w.namespace))
		Eventually(w.routeParents(ctx, other, "large")).Should(ConsistOf(
			And(HavePrefix("web: False/RouteLimitExceeded: Gateway "+w.namespace+"/web: the Gateway serves its 1 oldest routes"), ContainSubstring("left out of its configuration"))))
		Expect(w.gatewayCondition(ctx, "web", "Programmed")()).To(HavePrefix("True/"))
		Consistently(w.routeParents(ctx, w.namespace, "own")).Should(Equal([]string{"web: True/Accepted: "}))
		Eventually(w.configMap(ctx, "web-routes")).Should(WithTransform(configMapData("routes"), Equal("1")))

		By("the route past the bound leaving: the cutoff goes with it")
		Expect(k8s.Delete(ctx, &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "large"}})).To(Succeed())
		w.route(ctx, other, "small", w.namespace)
		Eventually(w.routeParents(ctx, other, "small")).Should(Equal([]string{"web: True/Accepted: "}))
		Eventually(w.configMap(ctx, "web-routes")).Should(WithTransform(configMapData("routes"), Equal("2")))
	})
})

// refusingBlueprint's route template refuses a route with a hostname under
// refused.example; its Gateway's ConfigMap lists the routes it serves.
const refusingBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-routes}
      data:
        routes: "{{ range .RouteTable.routes }}{{ if .accepted }}{{ .name }} {{ end }}{{ end }}"
        hosts: "{{ range .RouteTable.listeners }}{{ range .hosts }}{{ .hostname }} {{ end }}{{ end }}"
httpRouteTemplate:
  resourceTemplates:
  - name: check
    template: |
      {{- range .HTTPRoute.spec.hostnames }}
      {{- if hasSuffix ".refused.example" . }}{{ fail (printf "hostname %s is not served here" .) }}{{ end }}
      {{- end }}
`

var _ = Describe("A route its own templates refuse", func() {
	It("is left out of its Gateway's configuration, which keeps serving the rest, until its templates take it", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, refusingBlueprint)
		w.gateway(ctx, "web")
		routeWithHostname := func(name, hostname string) string {
			return `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ` + name + `, namespace: ` + w.namespace + `}
spec:
  parentRefs: [{name: web}]
  hostnames: [` + hostname + `]
`
		}
		w.apply(ctx, routeWithHostname("good", "good.example"))
		w.apply(ctx, routeWithHostname("bad", "x.refused.example"))
		Eventually(w.routeParents(ctx, w.namespace, "bad")).Should(ConsistOf(
			And(HavePrefix("web: False/UnsupportedValue: "), ContainSubstring("hostname x.refused.example is not served here"))))
		Eventually(w.configMap(ctx, "web-routes")).Should(And(
			WithTransform(configMapData("routes"), Equal("good ")),
			WithTransform(configMapData("hosts"), Equal("good.example * "))))
		Expect(w.gatewayCondition(ctx, "web", "Programmed")()).To(HavePrefix("True/"))
		// The ConfigMap may hold the route before the route's own status is written.
		Eventually(w.routeParents(ctx, w.namespace, "good")).Should(Equal([]string{"web: True/Accepted: "}))

		By("the route's owner mending it")
		w.apply(ctx, routeWithHostname("bad", "x.served.example"))
		Eventually(w.routeParents(ctx, w.namespace, "bad")).Should(Equal([]string{"web: True/Accepted: "}))
		Eventually(w.configMap(ctx, "web-routes")).Should(WithTransform(configMapData("routes"), Equal("bad good ")))
	})
})
