package controllers_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"

	"github.com/gatewright/gatewright/test/testenv"
)

// ancestors returns a policy's ancestor conditions as "Kind/name Type=Status/Reason: message".
func ancestors(ctx context.Context, obj client.Object) func() []string {
	return func() []string {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return []string{err.Error()}
		}
		return testenv.Ancestors(obj)
	}
}

var _ = Describe("Policy status", func() {
	It("reports per target whether a policy is accepted and how much of it took effect, and marks the targets", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		w.gateway(ctx, "web")
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: CLASS, namespace: gatewright-system}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: CLASS}]
  override: {greeting: provider}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: NAMESPACE}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: web}
  - {group: gateway.networking.k8s.io, kind: Gateway, name: missing}
  - {group: "", kind: Namespace, name: somewhere-else}
  default: {greeting: tenant}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: port, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {greeting: mine, port: 9090}
`)
		global := &gatewrightv1alpha1.GatewayClassConfig{}
		global.Namespace, global.Name = controllerNamespace, w.class
		Eventually(ancestors(ctx, global)).Should(Equal([]string{
			"GatewayClass/" + w.class + " Accepted=True/Accepted: ",
			"GatewayClass/" + w.class + " Enforced=True/Enforced: in effect on every Gateway and route it reaches",
		}))

		tenant := &gatewrightv1alpha1.GatewayConfig{}
		tenant.Namespace, tenant.Name = w.namespace, "web"
		overriddenBy := "GatewayClassConfig " + controllerNamespace + "/" + w.class
		Eventually(ancestors(ctx, tenant)).Should(Equal([]string{
			"Gateway/web Accepted=True/Accepted: ",
			"Gateway/web Enforced=False/Overridden: every value is overridden by " + overriddenBy,
			"Gateway/missing Accepted=False/TargetNotFound: no Gateway missing in namespace " + w.namespace,
			"Gateway/missing Enforced=False/Pending: the target is not accepted",
			"Namespace/somewhere-else Accepted=False/Invalid: a Namespace target must name the policy's own namespace " + w.namespace + ", not somewhere-else",
			"Namespace/somewhere-else Enforced=False/Pending: the target is not accepted",
		}))

		port := &gatewrightv1alpha1.GatewayConfig{}
		port.Namespace, port.Name = w.namespace, "port"
		Eventually(ancestors(ctx, port)).Should(ContainElement(
			"Gateway/web Enforced=True/PartiallyEnforced: not all in effect: on Gateway " + w.namespace + "/web: overridden by " + overriddenBy))

		Eventually(w.gatewayCondition(ctx, "web", gatewrightv1alpha1.ConditionGatewayConfigAffected)).Should(
			Equal("True/Affected: values from " + w.namespace + "/port"))
		Eventually(w.gatewayCondition(ctx, "web", gatewrightv1alpha1.ConditionGatewayClassConfigAffected)).Should(
			Equal("True/Affected: values from " + controllerNamespace + "/" + w.class))
		Eventually(func() string {
			class := &gatewayv1.GatewayClass{}
			Expect(k8s.Get(ctx, client.ObjectKey{Name: w.class}, class)).To(Succeed())
			c := meta.FindStatusCondition(class.Status.Conditions, gatewrightv1alpha1.ConditionGatewayClassConfigAffected)
			if c == nil {
				return "<none>"
			}
			return c.Message
		}).Should(Equal("targeted by GatewayClassConfig " + controllerNamespace + "/" + w.class))
	})

	It("says Invalid, naming the value, when the policy sets a value the blueprint's valuesSchema refuses", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint+`
valuesSchema:
  type: object
  properties:
    port: {type: integer, maximum: 9999}
`)
		w.gateway(ctx, "web")
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {port: 80000}
`)
		tenant := &gatewrightv1alpha1.GatewayConfig{}
		tenant.Namespace, tenant.Name = w.namespace, "web"
		Eventually(ancestors(ctx, tenant)).Should(Equal([]string{
			"Gateway/web Accepted=False/Invalid: refused by the blueprint's valuesSchema: port: should be less than or equal to 9999, got 80000 (Gateway " + w.namespace + "/web)",
			"Gateway/web Enforced=False/Invalid: refused by the blueprint's valuesSchema: port: should be less than or equal to 9999, got 80000 (Gateway " + w.namespace + "/web)",
		}))
	})

	It("says Invalid, naming the bound, when the policy's values are nested too deep, and stops the Gateway", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		tooDeep := strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100)
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: deep, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: `+tooDeep+`
`)
		refusal := "GatewayConfig " + w.namespace + "/deep: spec.default is nested deeper than 64 levels at a.a.a.a.a…"
		deep := &gatewrightv1alpha1.GatewayConfig{}
		deep.Namespace, deep.Name = w.namespace, "deep"
		Eventually(ancestors(ctx, deep)).Should(Equal([]string{
			"Gateway/web Accepted=False/Invalid: " + refusal,
			"Gateway/web Enforced=False/Invalid: " + refusal,
		}))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(
			Equal("False/Invalid: " + refusal + "; the objects applied before are left as they are"))
	})

	It("counts a Gateway that names a GatewayConfig in infrastructure.parametersRef as its target", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: params, namespace: NAMESPACE}
spec:
  default: {greeting: by-reference}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS
  infrastructure:
    parametersRef: {group: gatewright.dev, kind: GatewayConfig, name: params}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
`)
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("by-reference")))
		params := &gatewrightv1alpha1.GatewayConfig{}
		params.Namespace, params.Name = w.namespace, "params"
		Eventually(ancestors(ctx, params)).Should(Equal([]string{
			"Gateway/web Accepted=True/Accepted: ",
			"Gateway/web Enforced=True/Enforced: in effect on every Gateway and route it reaches",
		}))
	})
})
