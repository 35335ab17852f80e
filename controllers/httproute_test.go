package controllers_test

import (
	"context"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/test/testenv"
)

const routeBlueprint = `
values:
  default: {timeout: 15s}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-routes}
      data:
        routes: {{ len .HTTPRoutes | quote }}
httpRouteTemplate:
  resourceTemplates:
  - name: route-config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-on-{{ .Gateway.metadata.name }}}
      data:
        timeout: {{ .Values.timeout | quote }}
        backends: "{{ range .BackendRefs }}{{ .name }}={{ .resolved }} {{ end }}"
`

// routeParents returns the route's parent statuses written by Gatewright, as
// "gateway: Accepted status/reason".
func (w world) routeParents(ctx context.Context, namespace, name string) func() []string {
	return func() []string {
		route := &gatewayv1.HTTPRoute{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, route); err != nil {
			return []string{err.Error()}
		}
		var out []string
		for _, p := range route.Status.Parents {
			if p.ControllerName != "gatewright.dev/gateway-controller" {
				continue
			}
			out = append(out, string(p.ParentRef.Name)+": "+testenv.Condition(p.Conditions, "Accepted", route.Generation))
		}
		return out
	}
}

func (w world) route(ctx context.Context, namespace, name, parentNamespace string) {
	w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: `+name+`, namespace: `+namespace+`}
spec:
  parentRefs: [{name: web, namespace: `+parentNamespace+`}]
`)
}

var _ = Describe("HTTPRoute", func() {
	var w world
	BeforeEach(func(ctx SpecContext) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, routeBlueprint)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
	})

	It("renders route templates in the route's namespace, reports the parent and counts the route on the listener", func(ctx SpecContext) {
		other := newWorld(ctx).namespace
		w.route(ctx, other, "shop", w.namespace)
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: shop, namespace: `+other+`}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  default: {timeout: 30s}
`)
		Eventually(w.routeParents(ctx, other, "shop")).Should(Equal([]string{"web: True/Accepted: "}))
		cm := &corev1.ConfigMap{}
		Eventually(func() string {
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: other, Name: "shop-on-web"}, cm); err != nil {
				return err.Error()
			}
			return cm.Data["timeout"]
		}).Should(Equal("30s"))
		route := &gatewayv1.HTTPRoute{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: other, Name: "shop"}, route)).To(Succeed())
		Expect(cm.OwnerReferences).To(ConsistOf(HaveField("UID", route.UID)))
		Eventually(func() string {
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: other, Name: "shop"}, route)).To(Succeed())
			return testenv.Condition(route.Status.Parents[0].Conditions, "gatewright.dev/GatewayConfigAffected", route.Generation)
		}).Should(Equal("True/Affected: values from " + other + "/shop"))

		Eventually(func() int32 { return w.getGateway(ctx, "web").Status.Listeners[0].AttachedRoutes }).Should(BeEquivalentTo(1))
		Eventually(w.configMap(ctx, "web-routes")).Should(WithTransform(configMapData("routes"), Equal("1")))
	})

	It("renders a route of another namespace again when its blueprint, or a policy of its Gateway's namespace, changes", func(ctx SpecContext) {
		other := newWorld(ctx).namespace
		w.route(ctx, other, "shop", w.namespace)
		timeout := func() string {
			cm := &corev1.ConfigMap{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: other, Name: "shop-on-web"}, cm); err != nil {
				return err.Error()
			}
			return cm.Data["timeout"]
		}
		Eventually(timeout).Should(Equal("15s"))

		By("changing the blueprint's default")
		w.classAndBlueprint(ctx, strings.Replace(routeBlueprint, "timeout: 15s", "timeout: 25s", 1))
		Eventually(timeout).Should(Equal("25s"))

		By("setting a default for the Gateway's namespace")
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: team, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  default: {timeout: 20s}
`)
		Eventually(timeout).Should(Equal("20s"))
	})

	It("records nothing for a route when the blueprint renders nothing for routes, and prunes what earlier route templates made", func(ctx SpecContext) {
		other := newWorld(ctx).namespace
		w.route(ctx, other, "shop", w.namespace)
		Eventually(func() error {
			return k8s.Get(ctx, client.ObjectKey{Namespace: other, Name: "shop-on-web"}, &corev1.ConfigMap{})
		}).Should(Succeed())
		renderings := func() int {
			list := &gatewrightv1alpha1.RenderingList{}
			Expect(k8s.List(ctx, list, client.InNamespace(other))).To(Succeed())
			return len(list.Items)
		}
		Expect(renderings()).To(Equal(1))

		By("dropping the route templates")
		w.classAndBlueprint(ctx, routeBlueprint[:strings.Index(routeBlueprint, "httpRouteTemplate:")])
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: other, Name: "shop-on-web"}, &corev1.ConfigMap{}))
		}).Should(BeTrue())
		Eventually(renderings).Should(BeZero())
		Consistently(renderings, "2s").Should(BeZero())
		Expect(w.routeParents(ctx, other, "shop")()).To(Equal([]string{"web: True/Accepted: "}))
		route := &gatewayv1.HTTPRoute{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: other, Name: "shop"}, route)).To(Succeed())
		Expect(meta.FindStatusCondition(route.Status.Parents[0].Conditions, "gatewright.dev/GatewayClassConfigAffected")).To(BeNil())
		Eventually(w.configMap(ctx, "web-routes")).Should(WithTransform(configMapData("routes"), Equal("1")))
	})

	It("renders route templates again when the Gateway publishes an address", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, `
gatewayTemplate:
  resourceTemplates:
  - name: service
    template: |
      apiVersion: v1
      kind: Service
      metadata: {name: {{ .Gateway.metadata.name }}-lb}
      spec:
        type: LoadBalancer
        selector: {app: proxy}
        ports: [{name: http, port: 80}]
  status:
    template: |
      addresses:
      {{- range dig "status" "loadBalancer" "ingress" list (index .Resources.service 0) }}
      - {type: IPAddress, value: {{ .ip | quote }}}
      {{- end }}
httpRouteTemplate:
  resourceTemplates:
  - name: dns
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-dns}
      data:
        target: {{ with dig "status" "addresses" list .Gateway }}{{ (index . 0).value | quote }}{{ else }}"pending"{{ end }}
`)
		w.route(ctx, w.namespace, "shop", w.namespace)
		Eventually(w.configMap(ctx, "shop-dns")).Should(WithTransform(configMapData("target"), Equal("pending")))

		svc := &corev1.Service{}
		Eventually(func() error { return k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "web-lb"}, svc) }).Should(Succeed())
		patch := client.MergeFrom(svc.DeepCopy())
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "198.51.100.7"}}
		Expect(k8s.Status().Patch(ctx, svc, patch)).To(Succeed())

		Eventually(w.configMap(ctx, "shop-dns")).Should(WithTransform(configMapData("target"), Equal("198.51.100.7")))
	})

	It("renders a route template that waits for another once that one's objects are applied", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, routeBlueprint+`
  - name: later
    dependsOn: [first]
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-later}
      data: {first: {{ (index .Resources.first 0).metadata.name | quote }}}
  - name: first
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-first}
`)
		w.route(ctx, w.namespace, "shop", w.namespace)
		Eventually(w.configMap(ctx, "shop-later")).Should(WithTransform(configMapData("first"), Equal("shop-first")))
	})

	It("refuses to take over an object it does not own, with an ApplyFailed event on the route", func(ctx SpecContext) {
		w.apply(ctx, `
apiVersion: v1
kind: ConfigMap
metadata: {name: shop-on-web, namespace: NAMESPACE}
data: {owner: someone-else}
`)
		w.route(ctx, w.namespace, "shop", w.namespace)
		Eventually(w.routeParents(ctx, w.namespace, "shop")).Should(ConsistOf(HavePrefix("web: False/UnsupportedValue: ")))
		Eventually(w.events(ctx, "HTTPRoute", "shop")).Should(ContainElement(HavePrefix("ApplyFailed: ")))
		Expect(w.configMap(ctx, "shop-on-web")()).To(WithTransform(configMapData("owner"), Equal("someone-else")))
	})

	It("does not attach where the listener does not allow the route's namespace", func(ctx SpecContext) {
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Same}}}
`)
		// The Gateway of the BeforeEach took routes from every namespace: a route made
		// before the cache holds the edit attaches by the old listener, and its objects go
		// only once the edit arrives.
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		other := newWorld(ctx).namespace
		w.route(ctx, other, "shop", w.namespace)
		Eventually(w.routeParents(ctx, other, "shop")).Should(Equal([]string{
			"web: False/NotAllowedByListeners: listener http takes routes from namespace " + w.namespace + " only"}))
		Consistently(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: other, Name: "shop-on-web"}, &corev1.ConfigMap{}))
		}).Should(BeTrue())
	})

	It("reports NoMatchingParent for a sectionName that names no listener, and attaches once it names one", func(ctx SpecContext) {
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: NAMESPACE}
spec:
  parentRefs: [{name: web, sectionName: https}]
`)
		Eventually(w.routeParents(ctx, w.namespace, "shop")).Should(Equal([]string{
			"web: False/NoMatchingParent: Gateway " + w.namespace + "/web has no listener named https"}))
		_, err := w.configMap(ctx, "shop-on-web")()
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the route's objects are not rendered")

		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: NAMESPACE}
spec:
  parentRefs: [{name: web, sectionName: http}]
`)
		Eventually(w.routeParents(ctx, w.namespace, "shop")).Should(Equal([]string{"web: True/Accepted: "}))
		Eventually(w.configMap(ctx, "shop-on-web")).Should(WithTransform(configMapData("timeout"), Equal("15s")))
	})

	It("reports NoMatchingListenerHostname when no route hostname intersects the listener's", func(ctx SpecContext) {
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS
  listeners:
  - {name: http, protocol: HTTP, port: 80, hostname: "*.example.com", allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: NAMESPACE}
spec:
  parentRefs: [{name: web}]
  hostnames: [example.com, shop.example.org]
`)
		Eventually(w.routeParents(ctx, w.namespace, "shop")).Should(Equal([]string{
			"web: False/NoMatchingListenerHostname: no hostname of the route intersects the listener hostnames *.example.com"}))
		_, err := w.configMap(ctx, "shop-on-web")()
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the route's objects are not rendered")
	})

	It("moves a route's legacy inventory annotation once, keeping only the entries that check out", func(ctx SpecContext) {
		fixture := newLegacyFixture(ctx, w.namespace, newWorld(ctx).namespace, "shop-old", func(namespace string) map[string]string {
			return map[string]string{
				"app.kubernetes.io/managed-by":           "gatewright",
				"gateway.networking.k8s.io/gateway-name": "web",
				"gatewright.dev/gateway-namespace":       w.namespace,
				"gatewright.dev/httproute-name":          "shop",
				"gatewright.dev/httproute-namespace":     namespace,
				"gatewright.dev/template":                "old",
			}
		})
		legacy, _ := json.Marshal(map[string][]map[string]string{w.namespace + "/web": fixture.entries()})
		Expect(k8s.Create(ctx, &gatewayv1.HTTPRoute{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: w.namespace, Name: "shop",
				Annotations: map[string]string{"gatewright.dev/route-inventory": string(legacy)},
				Finalizers:  []string{"gatewright.dev/cleanup"},
			},
			Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "web"}}}},
		})).To(Succeed())

		Eventually(func() bool {
			route := &gatewayv1.HTTPRoute{}
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "shop"}, route)).To(Succeed())
			_, annotated := route.Annotations["gatewright.dev/route-inventory"]
			return annotated || len(route.Finalizers) > 0
		}).Should(BeFalse(), "the legacy annotation and finalizer are removed")
		fixture.expectOnlyTheStalePruned(ctx)
		Eventually(func() []string {
			var renderings gatewrightv1alpha1.RenderingList
			Expect(k8s.List(ctx, &renderings, client.InNamespace(w.namespace), client.MatchingLabels{"gatewright.dev/httproute-name": "shop"})).To(Succeed())
			var names []string
			for _, r := range renderings.Items {
				for _, o := range r.Objects {
					names = append(names, o.Kind+"/"+o.Name+"@"+o.Template)
				}
			}
			return names
		}).Should(ConsistOf("ConfigMap/shop-on-web@route-config"))
	})

	It("removes its objects and its status when the route leaves the Gateway, and lets go of a deleted route", func(ctx SpecContext) {
		w.route(ctx, w.namespace, "shop", w.namespace)
		Eventually(w.configMap(ctx, "shop-on-web")).Should(WithTransform(configMapData("timeout"), Equal("15s")))

		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: NAMESPACE}
spec:
  parentRefs: [{name: elsewhere}]
`)
		Eventually(func() bool {
			_, err := w.configMap(ctx, "shop-on-web")()
			return apierrors.IsNotFound(err)
		}).Should(BeTrue())
		Eventually(w.routeParents(ctx, w.namespace, "shop")).Should(BeEmpty())

		w.route(ctx, w.namespace, "shop", w.namespace)
		Eventually(w.configMap(ctx, "shop-on-web")).Should(WithTransform(configMapData("timeout"), Equal("15s")))
		Expect(k8s.Delete(ctx, &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: "shop"}})).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "shop"}, &gatewayv1.HTTPRoute{}))
		}).Should(BeTrue())
		Eventually(func() bool {
			_, err := w.configMap(ctx, "shop-on-web")()
			return apierrors.IsNotFound(err)
		}).Should(BeTrue())
	})
})

// routeResolvedRefs returns the route's parent statuses written by Gatewright, as
// "gateway: Accepted status/reason; ResolvedRefs status/reason: message".
func (w world) routeResolvedRefs(ctx context.Context, namespace, name string) func() []string {
	return func() []string {
		route := &gatewayv1.HTTPRoute{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, route); err != nil {
			return []string{err.Error()}
		}
		var out []string
		for _, p := range route.Status.Parents {
			if p.ControllerName == "gatewright.dev/gateway-controller" {
				accepted := meta.FindStatusCondition(p.Conditions, "Accepted")
				out = append(out, string(p.ParentRef.Name)+": "+string(accepted.Status)+"/"+accepted.Reason+"; "+testenv.Condition(p.Conditions, "ResolvedRefs", route.Generation))
			}
		}
		return out
	}
}

func (w world) routeTo(ctx context.Context, name, backendRef string) {
	w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: `+name+`, namespace: NAMESPACE}
spec:
  parentRefs: [{name: web}]
  rules: [{backendRefs: [`+backendRef+`]}]
`)
}

func service(namespace, name string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
}

var _ = Describe("HTTPRoute backendRefs", func() {
	var w world
	BeforeEach(func(ctx SpecContext) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, routeBlueprint)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
	})

	It("reports a backendRef of another kind as InvalidKind, and keeps the route accepted", func(ctx SpecContext) {
		w.routeTo(ctx, "shop", `{group: unknownkind.example.com, kind: NonExistent, name: web, port: 8080}`)
		Eventually(w.routeResolvedRefs(ctx, w.namespace, "shop")).Should(Equal([]string{
			"web: True/Accepted; False/InvalidKind: backendRef " + w.namespace + "/web is a NonExistent.unknownkind.example.com, not a core Service"}))
	})

	It("reports a missing Service as BackendNotFound until it is created, and never caches Service bodies it does not manage", func(ctx SpecContext) {
		w.routeTo(ctx, "shop", `{name: web-backend, port: 80}`)
		Eventually(w.routeResolvedRefs(ctx, w.namespace, "shop")).Should(Equal([]string{
			"web: True/Accepted; False/BackendNotFound: backendRef " + w.namespace + "/web-backend names a Service that does not exist"}))
		Eventually(w.configMap(ctx, "shop-on-web")).Should(WithTransform(configMapData("backends"), Equal("web-backend=false ")))

		Expect(k8s.Create(ctx, service(w.namespace, "web-backend"))).To(Succeed())
		Eventually(w.routeResolvedRefs(ctx, w.namespace, "shop")).Should(Equal([]string{"web: True/Accepted; True/ResolvedRefs: "}))
		Eventually(w.configMap(ctx, "shop-on-web")).Should(WithTransform(configMapData("backends"), Equal("web-backend=true ")))

		// The Service metadata cache sees every Service; the manager's cache still holds
		// only the Services Gatewright manages.
		services := &unstructured.UnstructuredList{}
		services.SetAPIVersion("v1")
		services.SetKind("ServiceList")
		Expect(managerClient.List(ctx, services, client.InNamespace(w.namespace))).To(Succeed())
		Expect(services.Items).To(BeEmpty())
	})

	It("reports a Service of another namespace as RefNotPermitted until a ReferenceGrant lets the route refer to it", func(ctx SpecContext) {
		backends := newWorld(ctx).namespace
		Expect(k8s.Create(ctx, service(backends, "web-backend"))).To(Succeed())
		w.routeTo(ctx, "shop", `{name: web-backend, namespace: `+backends+`, port: 80}`)
		Eventually(w.routeResolvedRefs(ctx, w.namespace, "shop")).Should(Equal([]string{
			"web: True/Accepted; False/RefNotPermitted: backendRef " + backends + "/web-backend is in another namespace, and no ReferenceGrant in " + backends + " lets HTTPRoutes of " + w.namespace + " refer to it"}))

		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: routes, namespace: `+backends+`}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: NAMESPACE}]
  to: [{group: "", kind: Service, name: web-backend}]
`)
		Eventually(w.routeResolvedRefs(ctx, w.namespace, "shop")).Should(Equal([]string{"web: True/Accepted; True/ResolvedRefs: "}))
	})
})

var _ = Describe("HTTPRoute on a Gateway whose latest render fails", func() {
	It("says Accepted=True only of the routes the configuration the Gateway applied holds, and of all once it applies again", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, `
values:
  default: {greeting: hello}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      {{ if eq .Values.greeting "break" }}{{ fail "the greeting breaks the proxy" }}{{ end }}
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-routes}
      data:
        routes: "{{ range .HTTPRoutes }}{{ .metadata.name }}/{{ .metadata.generation }} {{ end }}"
`)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		w.route(ctx, w.namespace, "served", w.namespace)
		Eventually(w.routeParents(ctx, w.namespace, "served")).Should(Equal([]string{"web: True/Accepted: "}))
		Eventually(w.configMap(ctx, "web-routes")).Should(WithTransform(configMapData("routes"), Equal("served/1 ")))

		By("breaking the Gateway's render")
		w.gatewayConfig(ctx, "greeting", "web", "{greeting: break}")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("False/Invalid"))
		w.route(ctx, w.namespace, "new", w.namespace)
		notApplied := "web: False/ConfigurationNotApplied: Gateway " + w.namespace + "/web did not apply its latest configuration, which holds this route; its Programmed condition says why"
		Eventually(w.routeParents(ctx, w.namespace, "new")).Should(Equal([]string{notApplied}))
		Consistently(w.routeParents(ctx, w.namespace, "served"), "2s").Should(Equal([]string{"web: True/Accepted: "}), "the route the configuration holds")

		By("editing a served route: the configuration holds its earlier generation")
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: served, namespace: NAMESPACE}
spec:
  parentRefs: [{name: web}]
  hostnames: [edited.example]
`)
		Eventually(w.routeParents(ctx, w.namespace, "served")).Should(Equal([]string{notApplied}))
		Expect(w.configMap(ctx, "web-routes")()).To(WithTransform(configMapData("routes"), Equal("served/1 ")), "the configuration applied before stays")

		By("mending the Gateway")
		w.gatewayConfig(ctx, "greeting", "web", "{greeting: mended}")
		Eventually(w.routeParents(ctx, w.namespace, "new")).Should(Equal([]string{"web: True/Accepted: "}))
		Eventually(w.routeParents(ctx, w.namespace, "served")).Should(Equal([]string{"web: True/Accepted: "}))
		Eventually(w.configMap(ctx, "web-routes")).Should(WithTransform(configMapData("routes"), Equal("new/1 served/2 ")))
	})
})
