package controllers_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/test/testenv"
)

// listenerSetBlueprint claims ListenerSet and lists the valid listeners its Gateway's
// templates see, each of a ListenerSet named by it.
const listenerSetBlueprint = `
serves:
  features: [Gateway, HTTPRoute, ListenerSet]
gatewayTemplate:
  resourceTemplates:
  - name: listeners
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-listeners}
      data:
        valid: "{{ range .Listeners }}{{ if .valid }}{{ with .listenerSet }}{{ .namespace }}/{{ .name }}/{{ end }}{{ .name }} {{ end }}{{ end }}"
        routes: "{{ range .HTTPRoutes }}{{ .metadata.name }} {{ end }}"
        hosts: "{{ range .RouteTable.listeners }}{{ with .listenerSet }}{{ .name }}/{{ end }}{{ .name }}={{ range .hosts }}{{ .hostname }}:{{ len .matches }},{{ end }} {{ end }}"
`

var _ = Describe("ListenerSet", func() {
	var w world
	BeforeEach(func(ctx SpecContext) {
		w = newWorld(ctx)
	})

	gatewayAllowing := func(ctx SpecContext, allowed string) {
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS
  `+allowed+`
  listeners:
  - {name: http, protocol: HTTP, port: 80, hostname: web.example.com, allowedRoutes: {namespaces: {from: All}}}
`)
	}
	listenerSet := func(ctx SpecContext, namespace, name, listeners string) {
		w.apply(ctx, fmt.Sprintf(`
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: %s, namespace: %s}
spec:
  parentRef: {name: web, namespace: NAMESPACE}
  listeners:
%s
`, name, namespace, indent(listeners, "  ")))
	}
	// condition is a ListenerSet's condition as "Status/Reason: message".
	condition := func(ctx SpecContext, namespace, name, conditionType string) func() string {
		return func() string {
			ls := &gatewayv1.ListenerSet{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, ls); err != nil {
				return err.Error()
			}
			return testenv.Condition(ls.Status.Conditions, conditionType, ls.Generation)
		}
	}
	// entries describes each listener of a ListenerSet's status in one line.
	entries := func(ctx SpecContext, namespace, name string) func() []string {
		return func() []string {
			ls := &gatewayv1.ListenerSet{}
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, ls)).To(Succeed())
			var out []string
			for _, l := range ls.Status.Listeners {
				line := []string{string(l.Name)}
				for _, t := range []gatewayv1.ListenerConditionType{gatewayv1.ListenerConditionAccepted, gatewayv1.ListenerConditionResolvedRefs, gatewayv1.ListenerConditionConflicted, gatewayv1.ListenerConditionProgrammed} {
					line = append(line, string(t)+"="+listenerCondition(l.Conditions, t, ls.Generation))
				}
				out = append(out, strings.Join(line, " "))
			}
			return out
		}
	}
	attachedListenerSets := func(ctx SpecContext) func() string {
		return func() string {
			gw := w.getGateway(ctx, "web")
			if gw.Status.AttachedListenerSets == nil {
				return "unset"
			}
			return fmt.Sprint(*gw.Status.AttachedListenerSets)
		}
	}

	It("attaches none to a Gateway that says nothing of allowedListeners", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, listenerSetBlueprint)
		gatewayAllowing(ctx, "")
		listenerSet(ctx, w.namespace, "tenant", `- {name: extra, protocol: HTTP, port: 8080}`)
		Eventually(condition(ctx, w.namespace, "tenant", "Accepted")).Should(Equal("False/NotAllowed: Gateway " + w.namespace + "/web allows no ListenerSets (spec.allowedListeners)"))
		Eventually(condition(ctx, w.namespace, "tenant", "Programmed")).Should(HavePrefix("False/NotAllowed: "))
		Eventually(attachedListenerSets(ctx)).Should(Equal("0"))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
	})

	It("attaches those of the Gateway's namespace when it allows Same, and those of selected namespaces when it selects", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, listenerSetBlueprint)
		other := newWorld(ctx).namespace
		gatewayAllowing(ctx, "allowedListeners: {namespaces: {from: Same}}")
		listenerSet(ctx, w.namespace, "same", `- {name: extra, protocol: HTTP, port: 8080}`)
		listenerSet(ctx, other, "elsewhere", `- {name: extra, protocol: HTTP, port: 8081}`)
		Eventually(condition(ctx, w.namespace, "same", "Accepted")).Should(Equal("True/Accepted: attached to Gateway " + w.namespace + "/web"))
		Eventually(condition(ctx, w.namespace, "same", "Programmed")).Should(Equal("True/Programmed: "))
		Eventually(entries(ctx, w.namespace, "same")).Should(Equal([]string{
			"extra Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed",
		}))
		Eventually(condition(ctx, other, "elsewhere", "Accepted")).Should(HavePrefix("False/NotAllowed: Gateway " + w.namespace + "/web allows ListenerSets of namespace " + w.namespace + " only"))
		Eventually(attachedListenerSets(ctx)).Should(Equal("1"))
		Eventually(w.configMap(ctx, "web-listeners")).Should(HaveField("Data", HaveKeyWithValue("valid", "http "+w.namespace+"/same/extra ")), "the Gateway's templates see the attached ListenerSet's listener, and no other")

		By("the Gateway selecting the other namespace by its label")
		gatewayAllowing(ctx, "allowedListeners: {namespaces: {from: Selector, selector: {matchLabels: {listeners: welcome}}}}")
		Eventually(condition(ctx, w.namespace, "same", "Accepted")).Should(HavePrefix("False/NotAllowed: "))
		ns := &corev1.Namespace{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: other}, ns)).To(Succeed())
		ns.Labels = map[string]string{"listeners": "welcome"}
		Expect(k8s.Update(ctx, ns)).To(Succeed())
		Eventually(condition(ctx, other, "elsewhere", "Accepted")).Should(HavePrefix("True/Accepted"))
		Eventually(entries(ctx, w.namespace, "same")).Should(BeEmpty(), "a ListenerSet not allowed lists no listeners")
		Eventually(attachedListenerSets(ctx)).Should(Equal("1"))
	})

	It("refuses a listener that conflicts with the Gateway's on the ListenerSet alone, and the Gateway stays programmed", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, listenerSetBlueprint)
		gatewayAllowing(ctx, "allowedListeners: {namespaces: {from: All}}")
		tenant := newWorld(ctx).namespace
		listenerSet(ctx, tenant, "partly", `
- {name: own, protocol: HTTP, port: 80, hostname: tenant.example.com}
- {name: taken, protocol: HTTP, port: 80, hostname: web.example.com}`)
		Eventually(entries(ctx, tenant, "partly")).Should(Equal([]string{
			"own Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed",
			"taken Accepted=False/HostnameConflict ResolvedRefs=True/ResolvedRefs Conflicted=True/HostnameConflict Programmed=False/HostnameConflict",
		}))
		Eventually(condition(ctx, tenant, "partly", "Accepted")).Should(Equal("True/ListenersNotValid: listeners not valid: taken (HostnameConflict); valid: own"))
		listenerSet(ctx, tenant, "wholly", `- {name: https, protocol: HTTPS, port: 80}`)
		Eventually(condition(ctx, tenant, "wholly", "Accepted")).Should(Equal("False/ListenersNotValid: listeners not valid: https (ProtocolConflict)"))
		Eventually(condition(ctx, tenant, "wholly", "Programmed")).Should(HavePrefix("False/ListenersNotValid"))
		Eventually(attachedListenerSets(ctx)).Should(Equal("1"))
		Expect(w.gatewayCondition(ctx, "web", "Accepted")()).To(Equal("True/Accepted: "))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
		Expect(w.listeners(ctx, "web")()).To(Equal([]string{
			"http Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[HTTPRoute] routes=0",
		}))
		Eventually(w.configMap(ctx, "web-listeners")).Should(HaveField("Data", HaveKeyWithValue("valid", "http "+tenant+"/partly/own ")))
	})

	It("attaches none on a class whose blueprint does not claim ListenerSet, and says so", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, strings.Replace(listenerSetBlueprint, "features: [Gateway, HTTPRoute, ListenerSet]", "features: [Gateway, HTTPRoute]", 1))
		gatewayAllowing(ctx, "allowedListeners: {namespaces: {from: All}}")
		listenerSet(ctx, w.namespace, "tenant", `- {name: extra, protocol: HTTP, port: 8080}`)
		Eventually(condition(ctx, w.namespace, "tenant", "Accepted")).Should(Equal(fmt.Sprintf("False/NotAllowed: the blueprint of GatewayClass %s does not claim ListenerSet in serves.features: its Gateways take no ListenerSets", w.class)))
		Eventually(attachedListenerSets(ctx)).Should(Equal("0"))
	})

	It("resolves a ListenerSet's certificateRefs from its namespace, with ReferenceGrants from kind ListenerSet, following the Secret and the grant", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, listenerSetBlueprint)
		gatewayAllowing(ctx, "allowedListeners: {namespaces: {from: All}}")
		tenant, certs := newWorld(ctx), newWorld(ctx)
		listenerSet(ctx, tenant.namespace, "secure", `
- {name: own, protocol: HTTPS, port: 443, hostname: own.example.com, tls: {certificateRefs: [{name: own-tls}]}}
- {name: shared, protocol: HTTPS, port: 443, hostname: shared.example.com, tls: {certificateRefs: [{name: shared-tls, namespace: `+certs.namespace+`}]}}`)
		resolvedRefs := func(listener string) func() string {
			return func() string {
				ls := &gatewayv1.ListenerSet{}
				Expect(k8s.Get(ctx, client.ObjectKey{Namespace: tenant.namespace, Name: "secure"}, ls)).To(Succeed())
				for _, l := range ls.Status.Listeners {
					if string(l.Name) == listener {
						return testenv.Condition(l.Conditions, string(gatewayv1.ListenerConditionResolvedRefs), ls.Generation)
					}
				}
				return "no listener " + listener
			}
		}
		Eventually(resolvedRefs("own")).Should(HavePrefix("False/InvalidCertificateRef: certificateRef " + tenant.namespace + "/own-tls names a Secret that does not exist"))
		Eventually(condition(ctx, tenant.namespace, "secure", "Accepted")).Should(HavePrefix("False/ListenersNotValid"))

		By("the Secret of its own namespace comes: no grant is needed for it")
		tenant.tlsSecret(ctx, tenant.namespace, "own-tls")
		Eventually(resolvedRefs("own")).Should(Equal("True/ResolvedRefs: "))
		Eventually(condition(ctx, tenant.namespace, "secure", "Accepted")).Should(HavePrefix("True/ListenersNotValid"))

		By("a grant to Gateways of the tenant's namespace is not one to its ListenerSets")
		certs.tlsSecret(ctx, certs.namespace, "shared-tls")
		grant := func(kind gatewayv1.Kind) *gatewayv1.ReferenceGrant {
			return &gatewayv1.ReferenceGrant{
				ObjectMeta: metav1.ObjectMeta{Namespace: certs.namespace, Name: strings.ToLower(string(kind))},
				Spec: gatewayv1.ReferenceGrantSpec{
					From: []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.GroupName, Kind: kind, Namespace: gatewayv1.Namespace(tenant.namespace)}},
					To:   []gatewayv1.ReferenceGrantTo{{Group: "", Kind: "Secret"}},
				},
			}
		}
		Expect(k8s.Create(ctx, grant("Gateway"))).To(Succeed())
		Consistently(resolvedRefs("shared"), "2s").Should(HavePrefix("False/RefNotPermitted: certificateRef " + certs.namespace + "/shared-tls is in another namespace, and no ReferenceGrant in " + certs.namespace + " lets ListenerSets of " + tenant.namespace + " refer to it"))
		Expect(k8s.Create(ctx, grant("ListenerSet"))).To(Succeed())
		Eventually(resolvedRefs("shared")).Should(Equal("True/ResolvedRefs: "))
		Eventually(condition(ctx, tenant.namespace, "secure", "Accepted")).Should(HavePrefix("True/Accepted"))
	})

	It("attaches a route whose parentRef names the ListenerSet to its listeners, and the Gateway serves it there", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, listenerSetBlueprint)
		gatewayAllowing(ctx, "allowedListeners: {namespaces: {from: All}}")
		tenant := newWorld(ctx).namespace
		listenerSet(ctx, tenant, "shop", `- {name: shop, protocol: HTTP, port: 80, hostname: shop.example.com}`)
		Eventually(condition(ctx, tenant, "shop", "Accepted")).Should(HavePrefix("True/Accepted"))
		route := func(name, sectionName string) {
			w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: `+name+`, namespace: `+tenant+`}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: shop, sectionName: `+sectionName+`}]
  rules: [{}]
`)
		}
		route("cart", "shop")
		Eventually(w.routeParents(ctx, tenant, "cart")).Should(Equal([]string{"shop: True/Accepted: "}))
		Eventually(w.configMap(ctx, "web-listeners")).Should(And(
			WithTransform(configMapData("routes"), Equal("cart ")),
			WithTransform(configMapData("hosts"), Equal("http=web.example.com:0, shop/shop=shop.example.com:1, "))))
		attachedRoutes := func() []int32 {
			ls := &gatewayv1.ListenerSet{}
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: tenant, Name: "shop"}, ls)).To(Succeed())
			var out []int32
			for _, l := range ls.Status.Listeners {
				out = append(out, l.AttachedRoutes)
			}
			return out
		}
		Eventually(attachedRoutes).Should(Equal([]int32{1}))
		Expect(w.listeners(ctx, "web")()).To(ConsistOf(HaveSuffix("routes=0")), "the Gateway's own listener takes no route of the ListenerSet")

		By("a sectionName the ListenerSet does not list")
		route("lost", "nope")
		Eventually(w.routeParents(ctx, tenant, "lost")).Should(Equal([]string{"shop: False/NoMatchingParent: ListenerSet " + tenant + "/shop has no listener named nope"}))

		By("the Gateway no longer allowing the ListenerSet")
		gatewayAllowing(ctx, "allowedListeners: {namespaces: {from: Same}}")
		Eventually(w.routeParents(ctx, tenant, "cart")).Should(Equal([]string{"shop: False/NotAllowedByListeners: ListenerSet " + tenant + "/shop is not attached to its Gateway (see its conditions)"}))
		Eventually(w.configMap(ctx, "web-listeners")).Should(WithTransform(configMapData("routes"), Equal("")))

		By("the ListenerSet gone: the route's entry goes with it")
		Expect(k8s.Delete(ctx, &gatewayv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "shop"}})).To(Succeed())
		Eventually(w.routeParents(ctx, tenant, "cart")).Should(BeEmpty())
	})
	It("takes back its verdict on a ListenerSet moved to another controller's Gateway, and says so when its Gateway is deleted", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, listenerSetBlueprint)
		gatewayAllowing(ctx, "allowedListeners: {namespaces: {from: All}}")
		tenant := newWorld(ctx).namespace
		naming := func(gateway string) {
			w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: moving, namespace: `+tenant+`}
spec:
  parentRef: {name: `+gateway+`, namespace: NAMESPACE}
  listeners: [{name: extra, protocol: HTTP, port: 8080}]
`)
		}
		naming("web")
		Eventually(condition(ctx, tenant, "moving", "Accepted")).Should(HavePrefix("True/Accepted"))
		Eventually(entries(ctx, tenant, "moving")).Should(HaveLen(1))
		Eventually(attachedListenerSets(ctx)).Should(Equal("1"))

		By("the ListenerSet naming a Gateway of another controller's class: back to Pending")
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: CLASS-other}
spec:
  controllerName: example.com/other
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: elsewhere, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS-other
  listeners: [{name: http, protocol: HTTP, port: 80}]
`)
		naming("elsewhere")
		Eventually(condition(ctx, tenant, "moving", "Accepted")).Should(Equal("Unknown/Pending: Waiting for controller"))
		Eventually(condition(ctx, tenant, "moving", "Programmed")).Should(Equal("Unknown/Pending: Waiting for controller"))
		Eventually(entries(ctx, tenant, "moving")).Should(BeEmpty())
		Eventually(attachedListenerSets(ctx)).Should(Equal("0"))

		By("back on the Gateway of Gatewright's, which then is deleted")
		naming("web")
		Eventually(condition(ctx, tenant, "moving", "Accepted")).Should(HavePrefix("True/Accepted"))
		Expect(k8s.Delete(ctx, w.getGateway(ctx, "web"))).To(Succeed())
		Eventually(condition(ctx, tenant, "moving", "Accepted")).Should(Equal("False/ParentNotAccepted: its parent Gateway " + w.namespace + "/web does not exist"))
		Eventually(condition(ctx, tenant, "moving", "Programmed")).Should(HavePrefix("False/ParentNotAccepted"))
		Eventually(entries(ctx, tenant, "moving")).Should(BeEmpty())
	})
	It("counts a route on a ListenerSet as reaching its Gateway for the policies of the route's namespace", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, listenerSetBlueprint+`httpRouteTemplate:
  resourceTemplates:
  - name: color
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-color}
      data: {color: {{ .Values.color | default "none" | quote }}}
`)
		gatewayAllowing(ctx, "allowedListeners: {namespaces: {from: All}}")
		tenant := newWorld(ctx)
		listenerSet(ctx, tenant.namespace, "shop", `- {name: shop, protocol: HTTP, port: 80, hostname: shop.example.com}`)
		Eventually(condition(ctx, tenant.namespace, "shop", "Accepted")).Should(HavePrefix("True/Accepted"))
		tenant.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: NAMESPACE}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: shop}]
  rules: [{}]
`)
		Eventually(w.routeParents(ctx, tenant.namespace, "cart")).Should(Equal([]string{"shop: True/Accepted: "}))
		tenant.apply(ctx, gatewayConfig("on-route", "HTTPRoute", "cart", "default: {color: blue}"))
		tenant.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: on-namespace, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  default: {color: blue}
`)
		Eventually(tenant.enforced(ctx, "on-route")).Should(HavePrefix("True/Enforced: in effect on every Gateway and route it reaches"))
		// The route's own policy beats its namespace's, there as on any route: both reach it.
		Eventually(tenant.enforced(ctx, "on-namespace")).Should(Equal("False/Overridden: every value is overridden by GatewayConfig " + tenant.namespace + "/on-route"))
		Eventually(tenant.configMap(ctx, "cart-color")).Should(WithTransform(configMapData("color"), Equal("blue")))

		By("the ListenerSet no longer taking the route: its policy reaches nothing")
		listenerSet(ctx, tenant.namespace, "shop", `- {name: shop, protocol: HTTP, port: 80, hostname: shop.example.com, allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {nobody: here}}}}}`)
		Eventually(tenant.enforced(ctx, "on-route")).Should(Equal("False/Pending: no Gateway or route of Gatewright takes values from this target yet"))
	})
})
