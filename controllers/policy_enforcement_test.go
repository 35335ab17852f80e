package controllers_test

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/test/testenv"
)

// colorBlueprint renders one ConfigMap per route holding .Values.color.
const colorBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
httpRouteTemplate:
  resourceTemplates:
  - name: color
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-color}
      data: {color: {{ .Values.color | default "none" | quote }}}
`

// gatewayConfig is the manifest of a GatewayConfig of the world's namespace.
func gatewayConfig(name, kind, target, block string) string {
	return fmt.Sprintf(`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: %s, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: %s, name: %s}]
  %s
`, name, kind, target, block)
}

// enforced returns one ancestor's Enforced condition of a GatewayConfig of the world.
func (w world) enforced(ctx context.Context, name string) func() string {
	return w.policyCondition(ctx, name, "Enforced")
}

// programmed reads the Programmed condition, GEP-713's name in gateway-api v1.6.3.
func (w world) programmed(ctx context.Context, name string) func() string {
	return w.policyCondition(ctx, name, "Programmed")
}

func (w world) policyCondition(ctx context.Context, name, conditionType string) func() string {
	return func() string {
		gwc := &gatewrightv1alpha1.GatewayConfig{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name}, gwc); err != nil {
			return err.Error()
		}
		if len(gwc.Status.Ancestors) == 0 {
			return "<no ancestors>"
		}
		return testenv.Condition(gwc.Status.Ancestors[0].Conditions, conditionType, gwc.Generation)
	}
}

// routeAffected returns the GatewayConfigAffected condition of a route's only parent.
func (w world) routeAffected(ctx context.Context, name string) func() string {
	return func() string {
		route := &gatewayv1.HTTPRoute{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name}, route); err != nil {
			return err.Error()
		}
		if len(route.Status.Parents) == 0 {
			return "<no parents>"
		}
		return testenv.Condition(route.Status.Parents[0].Conditions, gatewrightv1alpha1.ConditionGatewayConfigAffected, route.Generation)
	}
}

var _ = Describe("Policy enforcement", func() {
	// GEP-713 (Standard), example 2: policies on Gateways g1, g2 and routes r1..r4, where
	// r1 and r2 are on g1, r3 and r4 on g2.
	It("judges a policy over every Gateway and route it reaches, as GEP-713's example 2 says", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, colorBlueprint)
		for _, gw := range []string{"g1", "g2"} {
			w.gateway(ctx, gw)
		}
		for route, gw := range map[string]string{"r1": "g1", "r2": "g1", "r3": "g2", "r4": "g2"} {
			w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: `+route+`, namespace: NAMESPACE}
spec:
  parentRefs: [{name: `+gw+`}]
`)
		}
		w.apply(ctx, gatewayConfig("p1", "Gateway", "g1", "default: {color: red}")+"---"+
			gatewayConfig("p2", "HTTPRoute", "r1", "default: {color: blue}")+"---"+
			gatewayConfig("p3", "Gateway", "g2", "override: {color: yellow}")+"---"+
			gatewayConfig("p4", "HTTPRoute", "r4", "default: {color: green}"))

		for route, color := range map[string]string{"r1": "blue", "r2": "red", "r3": "yellow", "r4": "yellow"} {
			Eventually(w.configMap(ctx, route+"-color")).Should(WithTransform(configMapData("color"), Equal(color)), route)
		}
		ns := w.namespace
		Eventually(w.enforced(ctx, "p1")).Should(Equal("True/PartiallyEnforced: not all in effect: on HTTPRoute " +
			ns + "/r1 on Gateway " + ns + "/g1: overridden by GatewayConfig " + ns + "/p2"))
		Eventually(w.enforced(ctx, "p2")).Should(Equal("True/Enforced: in effect on every Gateway and route it reaches"))
		Eventually(w.enforced(ctx, "p3")).Should(Equal("True/Enforced: in effect on every Gateway and route it reaches"))
		Eventually(w.enforced(ctx, "p4")).Should(Equal("False/Overridden: every value is overridden by GatewayConfig " + ns + "/p3"))
		// The same judgement under the standard's name.
		Eventually(w.programmed(ctx, "p1")).Should(Equal("True/PartiallyProgrammed: not all in effect: on HTTPRoute " +
			ns + "/r1 on Gateway " + ns + "/g1: overridden by GatewayConfig " + ns + "/p2"))
		Eventually(w.programmed(ctx, "p2")).Should(Equal("True/Programmed: in effect on every Gateway and route it reaches"))
		Eventually(w.programmed(ctx, "p4")).Should(Equal("False/Overridden: every value is overridden by GatewayConfig " + ns + "/p3"))

		// A route names every policy that changes its values, whatever level it is at.
		Eventually(w.routeAffected(ctx, "r1")).Should(Equal("True/Affected: values from " + ns + "/p2"))
		Eventually(w.routeAffected(ctx, "r2")).Should(Equal("True/Affected: values from " + ns + "/p1"))
		Eventually(w.routeAffected(ctx, "r4")).Should(Equal("True/Affected: values from " + ns + "/p3"))

		By("r1 moving to g2: the policies it leaves and meets are judged again")
		// Once no judgement is pending: only the route's own edit can bring them back.
		Consistently(w.enforced(ctx, "p2"), "3s").Should(Equal("True/Enforced: in effect on every Gateway and route it reaches"))
		r1 := &gatewayv1.HTTPRoute{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "r1"}, r1)).To(Succeed())
		moved := r1.DeepCopy()
		moved.Spec.ParentRefs[0].Name = "g2"
		Expect(k8s.Patch(ctx, moved, client.MergeFrom(r1))).To(Succeed())
		Eventually(w.enforced(ctx, "p1")).Should(Equal("True/Enforced: in effect on every Gateway and route it reaches"))
		Eventually(w.enforced(ctx, "p2")).Should(Equal("False/Overridden: every value is overridden by GatewayConfig " + ns + "/p3"))
	})

	It("writes at most 16 ancestors and says which ones it left out", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		var targets []string
		for i := range 16 {
			targets = append(targets, fmt.Sprintf("{group: gateway.networking.k8s.io, kind: Gateway, name: missing-%02d}", i))
		}
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: many, namespace: NAMESPACE}
spec:
  targetRefs: [`+strings.Join(targets, ", ")+`]
  default: {greeting: many}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS
  infrastructure:
    parametersRef: {group: gatewright.dev, kind: GatewayConfig, name: many}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
`)
		// The Gateway still takes the values it names.
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("many")))
		many := &gatewrightv1alpha1.GatewayConfig{}
		many.Namespace, many.Name = w.namespace, "many"
		Eventually(func() string {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(many), many)).To(Succeed())
			if len(many.Status.Ancestors) == 0 {
				return "<no ancestors>"
			}
			last := many.Status.Ancestors[len(many.Status.Ancestors)-1]
			return fmt.Sprintf("%d ancestors, last %s: %s", len(many.Status.Ancestors), last.AncestorRef.Name,
				testenv.Condition(last.Conditions, "gatewright.dev/AncestorsOmitted", many.Generation))
		}).Should(Equal("16 ancestors, last missing-15: True/TooManyAncestors: status.ancestors holds at most 16 entries; 1 more ancestors are not listed: Gateway web"))
	})

	It("binds a route to the provider's overrides of the route's namespace, even on another tenant's Gateway", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, colorBlueprint)
		w.gateway(ctx, "web")
		teamB := newWorld(ctx).namespace
		w.route(ctx, teamB, "shop", w.namespace)
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: team-b-provider, namespace: `+teamB+`}
spec:
  targetRefs: [{group: "", kind: Namespace, name: `+teamB+`}]
  override: {color: provider-b}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: shop, namespace: `+teamB+`}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  override: {color: tenant-b}
`)
		Eventually(func() (string, error) {
			cm := &corev1.ConfigMap{}
			err := k8s.Get(ctx, client.ObjectKey{Namespace: teamB, Name: "shop-color"}, cm)
			return cm.Data["color"], err
		}).Should(Equal("provider-b"))
		provider := &gatewrightv1alpha1.GatewayClassConfig{}
		provider.Namespace, provider.Name = teamB, "team-b-provider"
		Eventually(ancestors(ctx, provider)).Should(ContainElement(
			"Namespace/" + teamB + " Enforced=True/Enforced: in effect on every Gateway and route it reaches"))
		tenant := &gatewrightv1alpha1.GatewayConfig{}
		tenant.Namespace, tenant.Name = teamB, "shop"
		Eventually(ancestors(ctx, tenant)).Should(ContainElement(
			"HTTPRoute/shop Enforced=False/Overridden: every value is overridden by GatewayClassConfig " + teamB + "/team-b-provider"))
	})

	It("refuses a policy whose when does not compile, on the policy, and renders nothing new for its Gateway", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		w.apply(ctx, gatewayConfig("broken", "Gateway", "web", `override: {values: {greeting: clipped}, when: "self.greeting >"}`))
		broken := &gatewrightv1alpha1.GatewayConfig{}
		broken.Namespace, broken.Name = w.namespace, "broken"
		Eventually(ancestors(ctx, broken)).Should(ContainElement(And(
			HavePrefix("Gateway/web Accepted=False/Invalid: GatewayConfig " + w.namespace + "/broken: spec.override.when: does not compile"))))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("False/Invalid: GatewayConfig " + w.namespace + "/broken: spec.override.when"))
		Consistently(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("hello")))
	})
})
