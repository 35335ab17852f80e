package controllers_test

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/apply"
)

// suiteNamespaceBytes is the suite's --max-rendered-bytes-per-namespace: two Gateways
// of largeValues pass it, every other spec's Gateways are far below.
const suiteNamespaceBytes = 1536 << 10

// largeBlob is a tenant's value of 400 KB (a policy's block may hold 512 KiB): a Gateway
// of largeBlueprint holds it twice, in its values and in its ConfigMap, some 800 KB.
var largeBlob = strings.Repeat("x", 400_000)

// largeBlueprint hands the values to the proxy in a ConfigMap, the usual way; with
// readsBack, a second template reads that ConfigMap back through .Resources and writes
// down the length of what it read.
func largeBlueprint(readsBack bool) string {
	spec := `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data:
        config.json: {{ .Values | toJson | quote }}
`
	if readsBack {
		spec += `  - name: seen
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-seen}
      data:
        length: "{{ range .Resources.config }}{{ len (dig "data" "config.json" "" .) }}{{ end }}"
`
	}
	return spec
}

// largeValues is the namespace's GatewayConfig, which gives every Gateway largeBlob.
const largeValues = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: proxy-config, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  default: {blob: BLOB}
`

func (w world) largeValues(ctx SpecContext) {
	w.apply(ctx, strings.Replace(largeValues, "BLOB", largeBlob, 1))
}

var _ = Describe("Rendered content in the controller's cache", func() {
	It("holds a large rendered ConfigMap without its data, and still corrects drift on it", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, largeBlueprint(false))
		w.largeValues(ctx)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("config.json"), ContainSubstring(largeBlob)))

		// The cache follows the API server a few milliseconds behind: it may still hold
		// the ConfigMap as first rendered, before the policy's values reached it.
		key := client.ObjectKey{Namespace: w.namespace, Name: "web-config"}
		cached := &corev1.ConfigMap{}
		Eventually(func() (map[string]string, error) {
			err := managerClient.Get(ctx, key, cached)
			return cached.Annotations, err
		}).Should(HaveKey(apply.ContentHashAnnotation))
		Expect(cached.Data).To(BeEmpty(), "the cache holds the data of the rendered ConfigMap")

		cm, _ := w.configMap(ctx, "web-config")()
		cm.Data["config.json"] = `{"blob":"drifted"}`
		Expect(k8s.Update(ctx, cm)).To(Succeed())
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("config.json"), ContainSubstring(largeBlob)))
	})

	It("hands a template that reads .Resources the live objects whole", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, largeBlueprint(true))
		w.largeValues(ctx)
		w.gateway(ctx, "web")
		values, err := json.Marshal(map[string]any{"blob": largeBlob})
		Expect(err).NotTo(HaveOccurred())
		Eventually(w.configMap(ctx, "web-seen")).Should(WithTransform(configMapData("length"), Equal(fmt.Sprint(len(values)))))
	})
})

var _ = Describe("Rendered bytes per namespace", func() {
	It("refuses the Gateway that would take its namespace past the bound on its own status, and serves other namespaces", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, largeBlueprint(false))
		w.largeValues(ctx)
		other := newWorld(ctx)
		other.class, other.blueprint = w.class, w.blueprint
		other.largeValues(ctx)

		w.gateway(ctx, "first")
		Eventually(w.gatewayCondition(ctx, "first", "Programmed")).Should(HavePrefix("True/Programmed"))
		w.gateway(ctx, "second")
		Eventually(w.gatewayCondition(ctx, "second", "Programmed")).Should(And(
			HavePrefix("False/RenderedBytesPerNamespaceExceeded: "),
			ContainSubstring("with the other Gateways and routes of namespace "+w.namespace),
			ContainSubstring(fmt.Sprintf("over the controller's --max-rendered-bytes-per-namespace of %d", suiteNamespaceBytes))))
		_, err := w.configMap(ctx, "second-config")()
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the refused Gateway's objects were applied")

		other.gateway(ctx, "third")
		Eventually(other.gatewayCondition(ctx, "third", "Programmed")).Should(HavePrefix("True/Programmed"))
		Expect(w.gatewayCondition(ctx, "first", "Programmed")()).To(HavePrefix("True/Programmed"))

		// Room made in the namespace brings the refused Gateway back.
		Expect(k8s.Delete(ctx, &gatewayv1.Gateway{ObjectMeta: w.getGateway(ctx, "first").ObjectMeta})).To(Succeed())
		Eventually(w.gatewayCondition(ctx, "second", "Programmed"), "30s").Should(HavePrefix("True/Programmed"))
	})

	It("counts a route's render in the route's namespace, refuses the route that would pass the bound on its own status, and keeps its Gateway serving the others", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, routeBlueprint[:strings.Index(routeBlueprint, "httpRouteTemplate:")]+`
httpRouteTemplate:
  resourceTemplates:
  - name: route-config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-config}
      data:
        config.json: {{ .Values | toJson | quote }}
`)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
		tenant := newWorld(ctx)
		// Each route's own GatewayConfig gives it largeBlob: some 800 KB rendered per route,
		// so that the second route's render would take the tenant's namespace past the bound.
		for _, name := range []string{"first", "second"} {
			tenant.apply(ctx, strings.NewReplacer("ROUTE", name, "BLOB", largeBlob).Replace(`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: ROUTE, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ROUTE}]
  default: {blob: BLOB}
`))
		}

		w.route(ctx, tenant.namespace, "first", w.namespace)
		Eventually(w.routeParents(ctx, tenant.namespace, "first")).Should(Equal([]string{"web: True/Accepted: "}))
		Eventually(tenant.configMap(ctx, "first-config")).Should(WithTransform(configMapData("config.json"), ContainSubstring(largeBlob)))
		Eventually(w.configMap(ctx, "web-routes")).Should(WithTransform(configMapData("routes"), Equal("1")))

		w.route(ctx, tenant.namespace, "second", w.namespace)
		Eventually(w.routeParents(ctx, tenant.namespace, "second")).Should(ConsistOf(And(
			HavePrefix("web: False/RenderedBytesPerNamespaceExceeded: "),
			ContainSubstring("with the other Gateways and routes of namespace "+tenant.namespace),
			ContainSubstring(fmt.Sprintf("over the controller's --max-rendered-bytes-per-namespace of %d", suiteNamespaceBytes)))))
		_, err := tenant.configMap(ctx, "second-config")()
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the refused route's objects were applied")
		Eventually(tenant.events(ctx, "HTTPRoute", "second")).Should(ContainElement(HavePrefix("RenderedBytesPerNamespaceExceeded: ")))
		// The Gateway's namespace is not charged, and the Gateway serves the route that
		// fits but leaves the refused one out.
		Consistently(w.configMap(ctx, "web-routes"), "2s").Should(WithTransform(configMapData("routes"), Equal("1")))
		Expect(w.gatewayCondition(ctx, "web", "Programmed")()).To(HavePrefix("True/Programmed"))
		Expect(w.routeParents(ctx, tenant.namespace, "first")()).To(Equal([]string{"web: True/Accepted: "}))

		// Room made in the namespace brings the refused route back.
		Expect(k8s.Delete(ctx, &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: tenant.namespace, Name: "first"}})).To(Succeed())
		Eventually(w.routeParents(ctx, tenant.namespace, "second"), "30s").Should(Equal([]string{"web: True/Accepted: "}))
		Eventually(tenant.configMap(ctx, "second-config")).Should(WithTransform(configMapData("config.json"), ContainSubstring(largeBlob)))
		Eventually(w.configMap(ctx, "web-routes")).Should(WithTransform(configMapData("routes"), Equal("1")))
	})
})
