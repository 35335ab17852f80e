package api

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

const blueprintYAML = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  generateName: bp-
spec:
  values:
    default: {replicas: 2, tags: {team: none}}
    override: {tags: {provider: acme}}
  valuesSchema:
    type: object
    properties:
      replicas: {type: integer}
  helpers: |
    {{- define "name" }}{{ .Gateway.metadata.name }}{{ end -}}
  serves:
    protocols: [HTTP, HTTPS, TLS, TCP, UDP]
    tlsModes: [Terminate, Passthrough]
    routeKinds: [HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute]
    features: [Gateway, HTTPRoute, GRPCRoute, TLSRoute]
  clusterScopedKinds:
  - kind: Namespace
  - {group: rbac.authorization.k8s.io, kind: ClusterRole}
  gatewayTemplate:
    resourceTemplates:
    - name: lb
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: lb}
    - name: lb-target-group
      dependsOn: [lb]
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: tg}
    status:
      template: |
        addresses: []
  httpRouteTemplate:
    resourceTemplates:
    - name: dns
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: dns}
`

// manyFeatures is n distinct feature names, comma-separated.
func manyFeatures(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("Feature%d", i)
	}
	return strings.Join(names, ", ")
}

var _ = Describe("GatewayClassBlueprint", func() {
	It("accepts a blueprint using every field and defaults the group of a cluster-scoped kind to core", func(ctx SpecContext) {
		Expect(k8s.Create(ctx, object(blueprintYAML))).To(Succeed())
	})

	It("stores clusterScopedKinds with the core group when the group is left out", func(ctx SpecContext) {
		obj := object(blueprintYAML)
		Expect(k8s.Create(ctx, obj)).To(Succeed())
		var bp gatewrightv1alpha1.GatewayClassBlueprint
		Expect(k8s.Get(ctx, types.NamespacedName{Name: obj.GetName()}, &bp)).To(Succeed())
		Expect(bp.Spec.ClusterScopedKinds).To(ContainElement(gatewrightv1alpha1.GroupKind{Group: "", Kind: "Namespace"}))
		Expect(string(bp.Spec.Values.Default.Raw)).To(MatchJSON(`{"replicas": 2, "tags": {"team": "none"}}`))
	})

	It("defaults tenantUnset to Allowed", func(ctx SpecContext) {
		obj := object(blueprintYAML)
		Expect(k8s.Create(ctx, obj)).To(Succeed())
		var bp gatewrightv1alpha1.GatewayClassBlueprint
		Expect(k8s.Get(ctx, types.NamespacedName{Name: obj.GetName()}, &bp)).To(Succeed())
		Expect(bp.Spec.TenantUnset).To(Equal(gatewrightv1alpha1.TenantUnsetAllowed))
	})

	It("stores a block of values, strategy and condition as written", func(ctx SpecContext) {
		obj := object(strings.Replace(blueprintYAML, "default: {replicas: 2, tags: {team: none}}",
			"default: {values: {replicas: 2, tags: {team: null}}, strategy: Merge, when: 'has(self.tags)'}", 1))
		Expect(k8s.Create(ctx, obj)).To(Succeed())
		var bp gatewrightv1alpha1.GatewayClassBlueprint
		Expect(k8s.Get(ctx, types.NamespacedName{Name: obj.GetName()}, &bp)).To(Succeed())
		Expect(string(bp.Spec.Values.Default.Raw)).To(MatchJSON(`{"values": {"replicas": 2, "tags": {"team": null}}, "strategy": "Merge", "when": "has(self.tags)"}`))
	})

	It("stores serves as written: what a field left out serves is the controller's default, not stored", func(ctx SpecContext) {
		obj := object(strings.Replace(blueprintYAML, "    tlsModes: [Terminate, Passthrough]\n", "", 1))
		Expect(k8s.Create(ctx, obj)).To(Succeed())
		var bp gatewrightv1alpha1.GatewayClassBlueprint
		Expect(k8s.Get(ctx, types.NamespacedName{Name: obj.GetName()}, &bp)).To(Succeed())
		Expect(bp.Spec.Serves.TLSModes).To(BeNil())
		Expect(bp.Spec.Serves.RouteKinds).To(HaveLen(5))
	})

	DescribeTable("refuses an invalid blueprint with a readable message",
		func(ctx SpecContext, from, to string, want ...string) {
			manifest := strings.Replace(blueprintYAML, from, to, 1)
			Expect(manifest).NotTo(Equal(blueprintYAML), "the replacement must change the manifest")
			refusedWith(k8s.Create(ctx, object(manifest)), want...)
		},
		Entry("a duplicate template name", "- name: lb-target-group", "- name: lb",
			`spec.gatewayTemplate.resourceTemplates[1]: Duplicate value`, `"name":"lb"`),
		Entry("a template name that is not a DNS label", "- name: lb-target-group", "- name: LB_TargetGroup",
			`spec.gatewayTemplate.resourceTemplates[1].name`, `should match`),
		Entry("values.default that is a string", "default: {replicas: 2, tags: {team: none}}", `default: "text"`,
			`spec.values.default: Invalid value: "string": spec.values.default in body must be of type object`),
		Entry("values.override that is a list", "override: {tags: {provider: acme}}", `override: [a, b]`,
			`spec.values.override: Invalid value: "array": spec.values.override in body must be of type object`),
		Entry("a valuesSchema that is a string", "valuesSchema:\n    type: object\n    properties:\n      replicas: {type: integer}", `valuesSchema: "integer"`,
			`spec.valuesSchema: Invalid value: "string"`),
		Entry("an empty template", "template: |\n        addresses: []", `template: ""`,
			`spec.gatewayTemplate.status.template`),
		Entry("an unknown tenantUnset", "  helpers: |", "  tenantUnset: Never\n  helpers: |",
			`spec.tenantUnset: Unsupported value: "Never": supported values: "Allowed", "Forbidden"`),
		Entry("waves whose last is not 100%", "  helpers: |", "  rollout: {waves: [\"1\", \"50%\"]}\n  helpers: |",
			`spec.rollout.waves: Invalid value`, `the last wave must be 100%`),
		Entry("percentages that descend", "  helpers: |", "  rollout: {waves: [\"50%\", \"10%\", \"100%\"]}\n  helpers: |",
			`spec.rollout.waves: Invalid value`, `percentages must ascend`),
		Entry("counts that descend", "  helpers: |", "  rollout: {waves: [\"5\", \"2\", \"100%\"]}\n  helpers: |",
			`spec.rollout.waves: Invalid value`, `counts must ascend`),
		Entry("a wave that is neither a count nor a percentage", "  helpers: |", "  rollout: {waves: [\"0\", \"100%\"]}\n  helpers: |",
			`spec.rollout.waves[0]`, `should match`),
		Entry("more than ten waves", "  helpers: |", "  rollout: {waves: [\"1\", \"2\", \"3\", \"4\", \"5\", \"6\", \"7\", \"8\", \"9\", \"10\", \"100%\"]}\n  helpers: |",
			`spec.rollout.waves: Too many`),
		Entry("an unknown strategy", "  helpers: |", "  rollout: {strategy: Canary}\n  helpers: |",
			`spec.rollout.strategy: Unsupported value: "Canary": supported values: "Waves", "AllAtOnce"`),
		Entry("a protocol served that the Gateway API does not define", "protocols: [HTTP, HTTPS, TLS, TCP, UDP]", "protocols: [HTTP, SCTP]",
			`spec.serves.protocols[1]: Unsupported value: "SCTP": supported values: "HTTP", "HTTPS", "TLS", "TCP", "UDP"`),
		Entry("an unknown tls mode", "tlsModes: [Terminate, Passthrough]", "tlsModes: [Reencrypt]",
			`spec.serves.tlsModes[0]: Unsupported value: "Reencrypt": supported values: "Terminate", "Passthrough"`),
		Entry("a route kind that is not one of the Gateway API's five", "routeKinds: [HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute]", "routeKinds: [HTTPRoute, VirtualService]",
			`spec.serves.routeKinds[1]: Unsupported value: "VirtualService"`),
		Entry("a protocol listed twice", "protocols: [HTTP, HTTPS, TLS, TCP, UDP]", "protocols: [HTTP, HTTP]",
			`spec.serves.protocols[1]: Duplicate value: "HTTP"`),
		Entry("an empty list of protocols, which would serve nothing", "protocols: [HTTP, HTTPS, TLS, TCP, UDP]", "protocols: []",
			`spec.serves.protocols: Invalid value`, `should have at least 1 items`),
		Entry("a feature name that is not a name", "features: [Gateway, HTTPRoute, GRPCRoute, TLSRoute]", "features: [Gateway, \"HTTP Route\"]",
			`spec.serves.features[1]`, `should match`),
		Entry("a feature name longer than 128 characters", "features: [Gateway, HTTPRoute, GRPCRoute, TLSRoute]", "features: ["+strings.Repeat("F", 129)+"]",
			`spec.serves.features[0]: Too long`),
		Entry("more than 64 features", "features: [Gateway, HTTPRoute, GRPCRoute, TLSRoute]", "features: ["+manyFeatures(65)+"]",
			`spec.serves.features: Too many: 65: must have at most 64 items`),
	)

	It("accepts 64 features, the most a GatewayClass lists", func(ctx SpecContext) {
		Expect(k8s.Create(ctx, object(strings.Replace(blueprintYAML, "features: [Gateway, HTTPRoute, GRPCRoute, TLSRoute]", "features: ["+manyFeatures(64)+"]", 1)))).To(Succeed())
	})

	It("defaults a rollout block to waves of 1, 10%, 50% and 100%, a 30 s soak and a 300 s gate deadline", func(ctx SpecContext) {
		obj := object(strings.Replace(blueprintYAML, "  helpers: |", "  rollout: {order: {namespaceLabel: example.com/ring}}\n  helpers: |", 1))
		Expect(k8s.Create(ctx, obj)).To(Succeed())
		var bp gatewrightv1alpha1.GatewayClassBlueprint
		Expect(k8s.Get(ctx, types.NamespacedName{Name: obj.GetName()}, &bp)).To(Succeed())
		Expect(bp.Spec.Rollout).To(Equal(&gatewrightv1alpha1.BlueprintRollout{
			Strategy:            gatewrightv1alpha1.RolloutWaves,
			Waves:               []string{"1", "10%", "50%", "100%"},
			SoakSeconds:         30,
			GateDeadlineSeconds: 300,
			Order:               &gatewrightv1alpha1.RolloutOrder{NamespaceLabel: "example.com/ring"},
		}))
	})
})

const gatewayClassConfigYAML = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata:
  generateName: gcc-
  namespace: NAMESPACE
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}
  - {group: "", kind: Namespace, name: NAMESPACE}
  default: {replicas: 2}
  override: {tags: {provider: acme}}
`

const gatewayConfigYAML = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata:
  generateName: gwc-
  namespace: NAMESPACE
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: web}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}
  - {group: "", kind: Namespace, name: NAMESPACE}
  default: {replicas: 3, tags: {team: null}}
`

var _ = Describe("GatewayClassConfig", func() {
	It("accepts targets of kind GatewayClass and Namespace", func(ctx SpecContext) {
		Expect(k8s.Create(ctx, objectIn(newNamespace(ctx), gatewayClassConfigYAML))).To(Succeed())
	})

	DescribeTable("refuses an invalid config with a readable message",
		func(ctx SpecContext, from, to string, want ...string) {
			manifest := strings.Replace(gatewayClassConfigYAML, from, to, 1)
			Expect(manifest).NotTo(Equal(gatewayClassConfigYAML), "the replacement must change the manifest")
			refusedWith(k8s.Create(ctx, objectIn(newNamespace(ctx), manifest)), want...)
		},
		Entry("a default that is a string", "default: {replicas: 2}", `default: "text"`,
			`spec.default: Invalid value: "string": spec.default in body must be of type object`),
		Entry("an override that is a number", "override: {tags: {provider: acme}}", `override: 3`,
			`spec.override: Invalid value: "integer": spec.override in body must be of type object`),
		Entry("a target of kind Service", "kind: GatewayClass, name: internet", `kind: Service, name: internet`,
			`a GatewayClassConfig may target only a GatewayClass (group gateway.networking.k8s.io) or a Namespace (group "")`),
		Entry("a tenant kind (Gateway)", "kind: GatewayClass, name: internet", `kind: Gateway, name: internet`,
			`a GatewayClassConfig may target only a GatewayClass`),
		Entry("a GatewayClass in the core group", "{group: gateway.networking.k8s.io, kind: GatewayClass", `{group: "", kind: GatewayClass`,
			`a GatewayClassConfig may target only a GatewayClass`),
		Entry("empty targetRefs",
			"targetRefs:\n  - {group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}\n  - {group: \"\", kind: Namespace, name: NAMESPACE}",
			"targetRefs: []",
			`spec.targetRefs: Invalid value`, `should have at least 1 items`),
		Entry("no targetRefs at all",
			"targetRefs:\n  - {group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}\n  - {group: \"\", kind: Namespace, name: NAMESPACE}",
			"",
			`spec.targetRefs: Required value`),
		Entry("the same target twice", `{group: "", kind: Namespace, name: NAMESPACE}`, `{group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}`,
			`spec.targetRefs[1]: Duplicate value`),
	)

	It("refuses more than 16 targets", func(ctx SpecContext) {
		refs := make([]string, 17)
		for i := range refs {
			refs[i] = "  - {group: gateway.networking.k8s.io, kind: GatewayClass, name: class-" + string(rune('a'+i)) + "}"
		}
		manifest := strings.Replace(gatewayClassConfigYAML,
			"  - {group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}", strings.Join(refs, "\n"), 1)
		refusedWith(k8s.Create(ctx, objectIn(newNamespace(ctx), manifest)), `spec.targetRefs: Too many: 18: must have at most 16 items`)
	})
})

var _ = Describe("GatewayConfig", func() {
	It("accepts targets of kind Gateway, HTTPRoute and Namespace, and a null that unsets a default", func(ctx SpecContext) {
		obj := objectIn(newNamespace(ctx), gatewayConfigYAML)
		Expect(k8s.Create(ctx, obj)).To(Succeed())
		var gwc gatewrightv1alpha1.GatewayConfig
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), &gwc)).To(Succeed())
		Expect(string(gwc.Spec.Default.Raw)).To(MatchJSON(`{"replicas": 3, "tags": {"team": null}}`))
	})

	It("accepts targets of every route kind", func(ctx SpecContext) {
		for _, kind := range []string{"GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"} {
			manifest := strings.Replace(gatewayConfigYAML, "kind: HTTPRoute, name: shop", "kind: "+kind+", name: shop", 1)
			Expect(manifest).NotTo(Equal(gatewayConfigYAML), "the replacement must change the manifest")
			Expect(k8s.Create(ctx, objectIn(newNamespace(ctx), manifest))).To(Succeed(), kind)
		}
	})

	It("accepts a config without targets, for use through a Gateway's infrastructure.parametersRef", func(ctx SpecContext) {
		manifest := `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: by-reference, namespace: NAMESPACE}
spec:
  default: {replicas: 3}
`
		Expect(k8s.Create(ctx, objectIn(newNamespace(ctx), manifest))).To(Succeed())
	})

	DescribeTable("refuses an invalid config with a readable message",
		func(ctx SpecContext, from, to string, want ...string) {
			manifest := strings.Replace(gatewayConfigYAML, from, to, 1)
			Expect(manifest).NotTo(Equal(gatewayConfigYAML), "the replacement must change the manifest")
			refusedWith(k8s.Create(ctx, objectIn(newNamespace(ctx), manifest)), want...)
		},
		Entry("a default that is a string", "default: {replicas: 3, tags: {team: null}}", `default: "text"`,
			`spec.default: Invalid value: "string": spec.default in body must be of type object`),
		Entry("a target of kind Service", "kind: HTTPRoute, name: shop", `kind: Service, name: shop`,
			`a GatewayConfig may target only a Gateway or a route (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute; group gateway.networking.k8s.io) or a Namespace (group "")`),
		Entry("a provider kind (GatewayClass)", "kind: Gateway, name: web", `kind: GatewayClass, name: web`,
			`a GatewayConfig may target only a Gateway or a route`),
	)
})
