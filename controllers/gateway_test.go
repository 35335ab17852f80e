package controllers_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// configBlueprint renders a ConfigMap whose data comes from values, and a ClusterIP
// Service; both are ready as soon as they exist.
const configBlueprint = `
values:
  default: {greeting: hello, port: 8080}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data:
        greeting: {{ .Values.greeting | quote }}
  - name: service
    dependsOn: [config]
    template: |
      apiVersion: v1
      kind: Service
      metadata: {name: {{ .Gateway.metadata.name }}-proxy}
      spec:
        selector: {app: proxy}
        ports: [{name: http, port: {{ .Values.port | int }}}]
`

var _ = Describe("Gateway", func() {
	var w world
	BeforeEach(func(ctx SpecContext) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		Eventually(w.classCondition(ctx)).Should(HavePrefix("True/Accepted"))
	})

	It("renders, applies with owner references and becomes Programmed once its objects are ready", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Accepted")).Should(Equal("True/Accepted: "))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(Equal("True/Programmed: 2 object(s) applied and ready"))

		cm, err := w.configMap(ctx, "web-config")()
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(Equal(map[string]string{"greeting": "hello"}))
		Expect(cm.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "gatewright"))
		Expect(cm.Labels).To(HaveKeyWithValue("gateway.networking.k8s.io/gateway-name", "web"))
		gw := w.getGateway(ctx, "web")
		Expect(cm.OwnerReferences).To(ConsistOf(HaveField("UID", gw.UID)))
		Expect(cm.ManagedFields).To(ContainElement(HaveField("Manager", "gatewright")))

		svc := &corev1.Service{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "web-proxy"}, svc)).To(Succeed())
		Expect(svc.Spec.Ports[0].Port).To(BeEquivalentTo(8080))

		Expect(gw.Status.Listeners).To(ConsistOf(And(HaveField("Name", gatewayv1.SectionName("http")), HaveField("AttachedRoutes", int32(0)))))
	})

	It("renders again when the tenant's GatewayConfig changes, and when a provider override binds it", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("hello")))
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {greeting: tenant}
`)
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("tenant")))
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: CLASS, namespace: gatewright-system}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: CLASS}]
  override: {greeting: provider}
`)
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("provider")))
	})

	It("prunes the objects of a template removed from the blueprint", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		w.classAndBlueprint(ctx, `
values:
  default: {greeting: hello}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {greeting: {{ .Values.greeting | quote }}}
`)
		Eventually(func() bool {
			err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "web-proxy"}, &corev1.Service{})
			return apierrors.IsNotFound(err)
		}).Should(BeTrue())
		Expect(w.configMap(ctx, "web-config")()).NotTo(BeNil())
	})

	It("keeps what was applied when the blueprint breaks, says where, and recovers when fixed", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		w.classAndBlueprint(ctx, `
values:
  default: {greeting: hello}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {greeting: {{ required "greeting2 is required" .Values.greeting2 | quote }}}
`)
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(Equal("False/Invalid: GatewayClassBlueprint " + w.blueprint +
			", template gateway/config, line 4: greeting2 is required; the objects applied before are left as they are"))
		Consistently(func() error {
			return k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "web-proxy"}, &corev1.Service{})
		}).Should(Succeed())

		w.classAndBlueprint(ctx, configBlueprint)
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
	})

	It("is not accepted while its infrastructure.parametersRef names a missing GatewayConfig, and recovers when it appears", func(ctx SpecContext) {
		w.apply(ctx, `
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
		Eventually(w.gatewayCondition(ctx, "web", "Accepted")).Should(Equal("False/InvalidParameters: Gateway " + w.namespace +
			"/web: spec.infrastructure.parametersRef GatewayConfig params: not found in namespace " + w.namespace))
		Expect(w.gatewayCondition(ctx, "web", "Programmed")()).To(Equal("False/Invalid: the Gateway is not accepted"))

		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: params, namespace: NAMESPACE}
spec:
  default: {greeting: by-reference}
`)
		Eventually(w.gatewayCondition(ctx, "web", "Accepted")).Should(Equal("True/Accepted: "))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
	})

	It("retries a rendered kind the API server does not serve until its CRD is installed", func(ctx SpecContext) {
		group := w.namespace + ".example.com"
		w.classAndBlueprint(ctx, `
gatewayTemplate:
  resourceTemplates:
  - name: widget
    template: |
      apiVersion: `+group+`/v1
      kind: Widget
      metadata: {name: {{ .Gateway.metadata.name }}-widget}
      spec: {size: 3}
`)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(And(
			HavePrefix("False/Invalid: GatewayClassBlueprint "+w.blueprint+", template gateway/widget: Widget \"web-widget\": "),
			ContainSubstring("no matches for kind")))

		w.apply(ctx, `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.`+group+`}
spec:
  group: `+group+`
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`)
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
	})

	It("removes a field the template stops rendering", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("hello")))
		w.classAndBlueprint(ctx, strings.Replace(configBlueprint, "        greeting: {{ .Values.greeting | quote }}", "        farewell: bye", 1))
		Eventually(func() map[string]string {
			cm, _ := w.configMap(ctx, "web-config")()
			return cm.Data
		}).Should(Equal(map[string]string{"farewell": "bye"}))
	})

	It("corrects drift on a rendered object, and says so in an event; the first apply says it in status only", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		// The Service waits for the ConfigMap: its creation, in a later round, is an event.
		Eventually(w.events(ctx, "Gateway", "web")).Should(ConsistOf("Applied: applied Service/" + w.namespace + "/web-proxy created"))
		cm, _ := w.configMap(ctx, "web-config")()
		cm.Data["greeting"] = "drifted"
		Expect(k8s.Update(ctx, cm)).To(Succeed())
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("hello")))
		Eventually(w.events(ctx, "Gateway", "web")).Should(ContainElement("Applied: applied ConfigMap/" + w.namespace + "/web-config configured"))
		Expect(w.events(ctx, "Gateway", "web")()).NotTo(ContainElement(ContainSubstring("web-config created")))
	})

	It("applies a blueprint edit without an event on the Gateway, which drift still gets", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("hello")))
		// The edit is revision 2 only once the spec as created is revision 1, applied
		// whole (the Service waits for the ConfigMap) and the Gateway's status written.
		Eventually(func() int64 { return w.rendering(ctx, "gateway.web").Revision }).Should(Equal(int64(1)))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		w.classAndBlueprint(ctx, strings.Replace(configBlueprint, "greeting: {{ .Values.greeting | quote }}", "greeting: {{ .Values.greeting | upper | quote }}", 1))
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("HELLO")))
		// Deleted by hand, the ConfigMap is made again: drift, an event. Events of one
		// recorder are written in order: once the drift's is there, the edit's would be too.
		cm, _ := w.configMap(ctx, "web-config")()
		Expect(k8s.Delete(ctx, cm)).To(Succeed())
		Eventually(w.events(ctx, "Gateway", "web")).Should(ContainElement("Applied: applied ConfigMap/" + w.namespace + "/web-config created"))
		Expect(w.events(ctx, "Gateway", "web")()).NotTo(ContainElement(ContainSubstring("web-config configured")))
	})

	It("renders again what read another object of the same round: its own apply's events bring nothing back", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, `
gatewayTemplate:
  resourceTemplates:
  - name: service
    template: |
      apiVersion: v1
      kind: Service
      metadata: {name: {{ .Gateway.metadata.name }}-proxy}
      spec:
        selector: {app: proxy}
        ports: [{name: http, port: 80}]
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data:
        upstream: {{ with .Resources.service }}{{ (index . 0).spec.clusterIP | quote }}{{ else }}"pending"{{ end }}
`)
		w.gateway(ctx, "web")
		svc := &corev1.Service{}
		Eventually(func() error { return k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "web-proxy"}, svc) }).Should(Succeed())
		Expect(svc.Spec.ClusterIP).NotTo(BeEmpty())
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("upstream"), Equal(svc.Spec.ClusterIP)))
	})

	It("refuses to take over an object it does not own, and changes nothing of it", func(ctx SpecContext) {
		Expect(k8s.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "web-config", Namespace: w.namespace},
			Data:       map[string]string{"greeting": "someone else's"},
		})).To(Succeed())
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(ContainSubstring(
			"False/Invalid: apply failed, nothing was pruned: ConfigMap " + w.namespace + "/web-config exists and is not managed by Gatewright for Gateway " + w.namespace + "/web"))
		Consistently(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("someone else's")))
	})

	It("waits for a change of input when the API server refuses a rendered object as invalid, instead of retrying", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {"not a valid key": x}
`)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(MatchRegexp(`^False/Invalid: apply failed, nothing was pruned: .*not a valid key`))
		applyFailures := func() int32 {
			var events corev1.EventList
			Expect(k8s.List(ctx, &events, client.InNamespace(w.namespace))).To(Succeed())
			count := int32(0)
			for _, e := range events.Items {
				if e.InvolvedObject.Kind == "Gateway" && e.Reason == "ApplyFailed" {
					count += max(e.Count, 1)
				}
			}
			return count
		}
		// One attempt: a retried 422 would fail again at every backoff step, about ten
		// times in 3 s, and the reconciles other events bring (a conflict's retry, the
		// Rendering's own event) hold the same render without sending it again.
		Eventually(applyFailures).Should(BeNumerically(">=", 1))
		Consistently(applyFailures, "3s").Should(Equal(int32(1)), "attempts: a retried 422 would fail again every backoff step")

		w.classAndBlueprint(ctx, configBlueprint)
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
	})

	It("writes nothing once a Gateway is programmed", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		versions := func() []string {
			gw := w.getGateway(ctx, "web")
			cm, _ := w.configMap(ctx, "web-config")()
			svc := &corev1.Service{}
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "web-proxy"}, svc)).To(Succeed())
			return []string{gw.ResourceVersion, cm.ResourceVersion, svc.ResourceVersion}
		}
		before := versions()
		Consistently(versions, "3s").Should(Equal(before))
	})

	It("deletes cluster-scoped objects through its Rendering's finalizer when the Gateway goes", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, `
clusterScopedKinds: [{group: rbac.authorization.k8s.io, kind: ClusterRole}]
gatewayTemplate:
  resourceTemplates:
  - name: role
    template: |
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRole
      metadata: {name: {{ .Gateway.metadata.namespace }}-{{ .Gateway.metadata.name }}-reader}
      rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
`)
		w.gateway(ctx, "web")
		role := &rbacv1.ClusterRole{}
		Eventually(func() error {
			return k8s.Get(ctx, client.ObjectKey{Name: w.namespace + "-web-reader"}, role)
		}).Should(Succeed())
		Expect(w.getGateway(ctx, "web").Finalizers).To(BeEmpty(), "the Gateway carries no finalizer a tenant could remove")
		// A Gateway rendered first from the cache's older blueprint lists that blueprint's
		// objects beside the role until the next apply prunes them.
		Eventually(func() []gatewrightv1alpha1.RenderedObject { return w.rendering(ctx, "gateway.web").Objects }).
			Should(ConsistOf(HaveField("Name", w.namespace+"-web-reader")))
		Expect(w.rendering(ctx, "gateway.web").Finalizers).To(ConsistOf("gatewright.dev/cleanup"))

		Expect(k8s.Delete(ctx, w.getGateway(ctx, "web"))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Name: w.namespace + "-web-reader"}, role))
		}).Should(BeTrue())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "gateway.web"}, &gatewrightv1alpha1.Rendering{}))
		}).Should(BeTrue())
	})
})

var _ = Describe("Gateway values from every level of the chain", func() {
	policy := func(kind, namespace, target, half, value string) string {
		return `
apiVersion: gatewright.dev/v1alpha1
kind: ` + kind + `
metadata: {name: level, namespace: ` + namespace + `}
spec:
  targetRefs: [` + target + `]
  ` + half + `: {greeting: ` + value + `}
`
	}
	classTarget := "{group: gateway.networking.k8s.io, kind: GatewayClass, name: CLASS}"
	namespaceTarget := `{group: "", kind: Namespace, name: NAMESPACE}`
	gatewayTarget := "{group: gateway.networking.k8s.io, kind: Gateway, name: web}"

	DescribeTable("a change at the level re-renders the Gateway",
		func(ctx SpecContext, manifest func(value string) string) {
			w := newWorld(ctx)
			w.classAndBlueprint(ctx, configBlueprint)
			w.gateway(ctx, "web")
			Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("hello")))
			w.apply(ctx, manifest("first"))
			Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("first")))
			w.apply(ctx, manifest("second"))
			Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("second")))
		},
		Entry("1: the blueprint's values", func(v string) string {
			return "apiVersion: gatewright.dev/v1alpha1\nkind: GatewayClassBlueprint\nmetadata: {name: BLUEPRINT}\nspec:\n" +
				indent(strings.Replace(configBlueprint, "greeting: hello", "greeting: "+v, 1), "  ")
		}),
		Entry("2: a global GatewayClassConfig", func(v string) string {
			return policy("GatewayClassConfig", controllerNamespace, classTarget, "default", v)
		}),
		Entry("3: a GatewayClassConfig on the namespace", func(v string) string {
			return policy("GatewayClassConfig", "NAMESPACE", namespaceTarget, "default", v)
		}),
		Entry("4: a GatewayClassConfig on the class in the namespace", func(v string) string {
			return policy("GatewayClassConfig", "NAMESPACE", classTarget, "default", v)
		}),
		Entry("5: a GatewayConfig on the namespace", func(v string) string {
			return policy("GatewayConfig", "NAMESPACE", namespaceTarget, "default", v)
		}),
		Entry("6: a GatewayConfig on the Gateway", func(v string) string {
			return policy("GatewayConfig", "NAMESPACE", gatewayTarget, "default", v)
		}),
	)

	// movedTo points Gateway web, programmed by the blueprint, at class, and waits until
	// what was rendered for it and its Rendering are gone.
	movedTo := func(ctx SpecContext, w world, class string) {
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: NAMESPACE}
spec:
  gatewayClassName: `+class+`
  listeners:
  - {name: http, protocol: HTTP, port: 80}
`)
		Eventually(func() bool {
			_, err := w.configMap(ctx, "web-config")()
			return apierrors.IsNotFound(err)
		}).Should(BeTrue())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "gateway.web"}, &gatewrightv1alpha1.Rendering{}))
		}).Should(BeTrue())
	}
	programmedWorld := func(ctx SpecContext) world {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		w.gateway(ctx, "web")
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("hello")))
		return w
	}

	It("cleans up when the Gateway moves to a class of another controller", func(ctx SpecContext) {
		w := programmedWorld(ctx)
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: CLASS-other}
spec:
  controllerName: example.com/other
`)
		movedTo(ctx, w, "CLASS-other")
	})

	It("says so when it cleans up because the Gateway moves to a class that does not exist", func(ctx SpecContext) {
		w := programmedWorld(ctx)
		movedTo(ctx, w, "CLASS-typo")
		Expect(w.gatewayCondition(ctx, "web", "Accepted")()).To(Equal(
			"False/Invalid: GatewayClass " + w.class + "-typo not found; the objects rendered for this Gateway are deleted"))
		Expect(w.gatewayCondition(ctx, "web", "Programmed")()).To(HavePrefix("False/Invalid: the Gateway is not accepted"))
	})
})
