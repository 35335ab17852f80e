package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/test/testenv"
)

// routeParentsOf returns the parent statuses Gatewright wrote on a route of any kind, as
// "gateway: Accepted status/reason: message | ResolvedRefs status/reason: message".
func (w world) routeParentsOf(ctx context.Context, kind, name string) func() []string {
	return func() []string {
		route := routes.New(kind)
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name}, route); err != nil {
			return []string{err.Error()}
		}
		var out []string
		for _, p := range routes.Status(route).Parents {
			if p.ControllerName != "gatewright.dev/gateway-controller" {
				continue
			}
			out = append(out, string(p.ParentRef.Name)+": "+testenv.Condition(p.Conditions, "Accepted", route.GetGeneration())+
				" | "+testenv.Condition(p.Conditions, "ResolvedRefs", route.GetGeneration()))
		}
		return out
	}
}

// kindsBlueprint serves TLS passthrough, TCP and GRPCRoute besides HTTP, and counts the
// routes of each kind its gateway templates see.
const kindsBlueprint = `
serves:
  protocols: [HTTP, TLS, TCP]
  tlsModes: [Passthrough]
  routeKinds: [HTTPRoute, GRPCRoute, TLSRoute, TCPRoute]
gatewayTemplate:
  resourceTemplates:
  - name: routes
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-routes}
      data:
        grpc: "{{ range .GRPCRoutes }}{{ .metadata.name }} {{ end }}"
        tls: "{{ range .TLSRoutes }}{{ .metadata.name }}:{{ index .spec.hostnames 0 }} {{ end }}"
        tcp: "{{ range .TCPRoutes }}{{ .metadata.name }} {{ end }}"
        udp: "{{ len .UDPRoutes }}"
`

var _ = Describe("Routes of every kind", func() {
	It("attaches GRPCRoutes, TLSRoutes and TCPRoutes to the listeners that take them, refuses a kind the class does not serve, resolves backendRefs and hands them to the templates", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, kindsBlueprint)
		w.gatewayWithListeners(ctx, "edge", `
- {name: http, protocol: HTTP, port: 80}
- {name: tls, protocol: TLS, port: 443, tls: {mode: Passthrough}}
- {name: tcp, protocol: TCP, port: 5432}`)
		Eventually(w.gatewayCondition(ctx, "edge", "Programmed")).Should(HavePrefix("True/"))
		Expect(k8s.Create(ctx, service(w.namespace, "db"))).To(Succeed())
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: greeter, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge}]
  rules: [{backendRefs: [{name: greeter, port: 50051}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata: {name: secure, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge}]
  hostnames: [secure.example.com]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata: {name: postgres, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge, sectionName: tcp}]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata: {name: wrong-listener, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge, sectionName: http}]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: UDPRoute
metadata: {name: dns, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge}]
  rules: [{backendRefs: [{name: db, port: 53}]}]
`)
		Eventually(w.routeParentsOf(ctx, routes.KindGRPCRoute, "greeter")).Should(Equal([]string{
			"edge: True/Accepted:  | False/BackendNotFound: backendRef " + w.namespace + "/greeter names a Service that does not exist"}))
		Eventually(w.routeParentsOf(ctx, routes.KindTLSRoute, "secure")).Should(Equal([]string{"edge: True/Accepted:  | True/ResolvedRefs: "}))
		Eventually(w.routeParentsOf(ctx, routes.KindTCPRoute, "postgres")).Should(Equal([]string{"edge: True/Accepted:  | True/ResolvedRefs: "}))
		Eventually(w.routeParentsOf(ctx, routes.KindTCPRoute, "wrong-listener")).Should(ConsistOf(
			HavePrefix("edge: False/NotAllowedByListeners: listener http has protocol HTTP, which takes no TCPRoute")))
		Eventually(w.routeParentsOf(ctx, routes.KindUDPRoute, "dns")).Should(ConsistOf(
			HavePrefix("edge: False/NotAllowedByListeners: ")))

		Eventually(w.listeners(ctx, "edge")).Should(Equal([]string{
			"http Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[HTTPRoute GRPCRoute] routes=1",
			"tls Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[TLSRoute] routes=1",
			"tcp Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[TCPRoute] routes=1",
		}))
		Eventually(func() map[string]string {
			cm, err := w.configMap(ctx, "edge-routes")()
			if err != nil {
				return map[string]string{"error": err.Error()}
			}
			return cm.Data
		}).Should(Equal(map[string]string{"grpc": "greeter ", "tls": "secure:secure.example.com ", "tcp": "postgres ", "udp": "0"}))

		By("a Service that appears resolves the GRPCRoute's backendRef")
		Expect(k8s.Create(ctx, service(w.namespace, "greeter"))).To(Succeed())
		Eventually(w.routeParentsOf(ctx, routes.KindGRPCRoute, "greeter")).Should(Equal([]string{"edge: True/Accepted:  | True/ResolvedRefs: "}))
	})

	It("lets a route of another kind refer to a Service of another namespace only through a ReferenceGrant from its kind", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, kindsBlueprint)
		w.gatewayWithListeners(ctx, "edge", `- {name: tcp, protocol: TCP, port: 5432}`)
		backends := newWorld(ctx)
		Expect(k8s.Create(ctx, service(backends.namespace, "db"))).To(Succeed())
		w.apply(ctx, strings.ReplaceAll(`
apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata: {name: postgres, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge}]
  rules: [{backendRefs: [{name: db, namespace: BACKENDS, port: 5432}]}]
`, "BACKENDS", backends.namespace))
		Eventually(w.routeParentsOf(ctx, routes.KindTCPRoute, "postgres")).Should(ConsistOf(
			HavePrefix("edge: True/Accepted:  | False/RefNotPermitted: backendRef " + backends.namespace + "/db is in another namespace, and no ReferenceGrant in " + backends.namespace + " lets TCPRoutes of " + w.namespace)))

		grant := func(kind string) {
			backends.apply(ctx, strings.NewReplacer("FROM", w.namespace, "KIND", kind).Replace(`
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: from-routes, namespace: NAMESPACE}
spec:
  from: [{group: gateway.networking.k8s.io, kind: KIND, namespace: FROM}]
  to: [{group: "", kind: Service}]
`))
		}
		grant("HTTPRoute")
		Consistently(w.routeParentsOf(ctx, routes.KindTCPRoute, "postgres"), "2s").Should(ConsistOf(ContainSubstring("False/RefNotPermitted")), "a grant to HTTPRoutes let a TCPRoute through")
		grant("TCPRoute")
		Eventually(w.routeParentsOf(ctx, routes.KindTCPRoute, "postgres")).Should(Equal([]string{"edge: True/Accepted:  | True/ResolvedRefs: "}))
	})

	It("refuses the newest route of any kind past a Gateway-wide bound on its own status, and serves the rest", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, kindsBlueprint)
		w.gatewayWithListeners(ctx, "edge", `- {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}`)
		Eventually(w.gatewayCondition(ctx, "edge", "Programmed")).Should(HavePrefix("True/"))
		w.apply(ctx, grpcRoute("own", "edge", 1))
		Eventually(w.routeParentsOf(ctx, routes.KindGRPCRoute, "own")).Should(ConsistOf(HavePrefix("edge: True/Accepted: ")))

		By("another namespace attaching a GRPCRoute of about 300 KiB, past the suite's 256 KiB of routes")
		time.Sleep(1100 * time.Millisecond) // creation timestamps count whole seconds: "own" is older
		other := newWorld(ctx)
		other.apply(ctx, strings.ReplaceAll(grpcRoute("large", "edge", 16), "name: edge", "name: edge, namespace: "+w.namespace))
		Eventually(other.routeParentsOf(ctx, routes.KindGRPCRoute, "large")).Should(ConsistOf(
			And(HavePrefix("edge: False/RouteLimitExceeded: Gateway "+w.namespace+"/edge: the Gateway serves its 1 oldest routes"), ContainSubstring("left out of its configuration"))))
		Expect(w.gatewayCondition(ctx, "edge", "Programmed")()).To(HavePrefix("True/"))
		Consistently(w.routeParentsOf(ctx, routes.KindGRPCRoute, "own"), "2s").Should(ConsistOf(HavePrefix("edge: True/Accepted: ")))
		Eventually(w.configMap(ctx, "edge-routes")).Should(WithTransform(configMapData("grpc"), Equal("own ")))

		By("the route past the bound leaving: the cutoff goes with it")
		Expect(k8s.Delete(ctx, &gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: other.namespace, Name: "large"}})).To(Succeed())
		other.apply(ctx, strings.ReplaceAll(grpcRoute("small", "edge", 1), "name: edge", "name: edge, namespace: "+w.namespace))
		Eventually(other.routeParentsOf(ctx, routes.KindGRPCRoute, "small")).Should(ConsistOf(HavePrefix("edge: True/Accepted: ")))
		Eventually(w.configMap(ctx, "edge-routes")).Should(WithTransform(configMapData("grpc"), And(ContainSubstring("own "), ContainSubstring("small "))))
	})
})

// grpcRoute is a GRPCRoute of the test's namespace on gateway, with matches of 16
// headers of 2 KiB each: 8 of them make about 300 KiB.
func grpcRoute(name, gateway string, matches int) string {
	var headers []string
	for i := range 16 {
		headers = append(headers, fmt.Sprintf("{name: x-h%d, value: %s}", i, strings.Repeat("v", 2048)))
	}
	var all []string
	for i := range matches {
		all = append(all, fmt.Sprintf("{method: {service: pkg.S%d}, headers: [%s]}", i, strings.Join(headers, ", ")))
	}
	return `
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: ` + name + `, namespace: NAMESPACE}
spec:
  parentRefs: [{name: ` + gateway + `}]
  rules: [{matches: [` + strings.Join(all, ", ") + `]}]
`
}

// routeTemplatesBlueprint has route templates for HTTPRoutes, GRPCRoutes and TCPRoutes,
// all named route-config: each kind's objects are told apart by what they say, not by
// the template's name.
const routeTemplatesBlueprint = `
serves:
  protocols: [HTTP, TCP]
  routeKinds: [HTTPRoute, GRPCRoute, TCPRoute]
values:
  default: {timeout: 15s}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
httpRouteTemplate:
  resourceTemplates:
  - name: route-config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: http-{{ .HTTPRoute.metadata.name }}}
      data: {route: {{ .Route.metadata.name }}, timeout: {{ .Values.timeout | quote }}}
grpcRouteTemplate:
  resourceTemplates:
  - name: route-config
    template: |
      {{- if eq .Route.metadata.name "refused" }}{{ fail "no gRPC service here" }}{{ end }}
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: grpc-{{ .GRPCRoute.metadata.name }}}
      data:
        route: {{ .Route.metadata.name }}
        timeout: {{ .Values.timeout | quote }}
        backends: "{{ range .BackendRefs }}{{ .name }} {{ end }}"
tcpRouteTemplate:
  resourceTemplates:
  - name: route-config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: tcp-{{ .TCPRoute.metadata.name }}}
      data: {route: {{ .Route.metadata.name }}, port: "{{ range .TCPRoute.spec.rules }}{{ range .backendRefs }}{{ .port }}{{ end }}{{ end }}"}
`

// routeRenderings lists the owners of the Renderings in the namespace, as "Kind/name".
func (w world) routeRenderings(ctx context.Context) func() []string {
	return func() []string {
		var list gatewrightv1alpha1.RenderingList
		if err := k8s.List(ctx, &list, client.InNamespace(w.namespace)); err != nil {
			return []string{err.Error()}
		}
		var out []string
		for _, r := range list.Items {
			out = append(out, r.Owner.Kind+"/"+r.Owner.Name)
		}
		return out
	}
}

var _ = Describe("Route templates of every kind", func() {
	It("renders each route's templates of its kind, keeps a GRPCRoute's objects and records apart from an HTTPRoute's of the same name, and gives it the values its GatewayConfig sets", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, routeTemplatesBlueprint)
		w.gatewayWithListeners(ctx, "edge", `
- {name: http, protocol: HTTP, port: 80}
- {name: tcp, protocol: TCP, port: 5432}`)
		Eventually(w.gatewayCondition(ctx, "edge", "Programmed")).Should(HavePrefix("True/"))
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge, sectionName: http}]
  hostnames: [shop.example.com]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: shop, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge, sectionName: http}]
  hostnames: [grpc.shop.example.com]
  rules: [{backendRefs: [{name: greeter, port: 50051}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata: {name: db, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge, sectionName: tcp}]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
`)
		data := func(name string) func() map[string]string {
			return func() map[string]string {
				cm, err := w.configMap(ctx, name)()
				if err != nil {
					return map[string]string{"error": err.Error()}
				}
				return cm.Data
			}
		}
		Eventually(data("http-shop")).Should(Equal(map[string]string{"route": "shop", "timeout": "15s"}))
		Eventually(data("grpc-shop")).Should(Equal(map[string]string{"route": "shop", "timeout": "15s", "backends": "greeter "}))
		Eventually(data("tcp-db")).Should(Equal(map[string]string{"route": "db", "port": "5432"}))
		Eventually(w.routeRenderings(ctx)).Should(ConsistOf("Gateway/edge", "HTTPRoute/shop", "GRPCRoute/shop", "TCPRoute/db"))
		grpc := &gatewayv1.GRPCRoute{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "shop"}, grpc)).To(Succeed())
		cm, err := w.configMap(ctx, "grpc-shop")()
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.OwnerReferences).To(ConsistOf(And(HaveField("Kind", "GRPCRoute"), HaveField("UID", grpc.UID))))
		Eventually(w.routeParentsOf(ctx, routes.KindGRPCRoute, "shop")).Should(ConsistOf(HavePrefix("edge: True/Accepted: ")))

		By("a GatewayConfig targeting the GRPCRoute: its objects take the values, the HTTPRoute's of its name do not")
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: grpc-shop, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GRPCRoute, name: shop}]
  default: {timeout: 30s}
`)
		Eventually(data("grpc-shop")).Should(HaveKeyWithValue("timeout", "30s"))
		policy := &gatewrightv1alpha1.GatewayConfig{}
		policy.Namespace, policy.Name = w.namespace, "grpc-shop"
		Eventually(ancestors(ctx, policy)).Should(ContainElement("GRPCRoute/shop Accepted=True/Accepted: "))
		Consistently(data("http-shop"), "2s").Should(HaveKeyWithValue("timeout", "15s"))

		By("deleting the HTTPRoute: its objects and records go, the GRPCRoute's of its name stay")
		Expect(k8s.Delete(ctx, &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: "shop"}})).To(Succeed())
		Eventually(data("http-shop")).Should(HaveKey("error"))
		Eventually(w.routeRenderings(ctx)).Should(ConsistOf("Gateway/edge", "GRPCRoute/shop", "TCPRoute/db"))
		Consistently(data("grpc-shop"), "2s").Should(HaveKeyWithValue("timeout", "30s"))

		By("deleting the GRPCRoute: its objects and records go too")
		Expect(k8s.Delete(ctx, grpc)).To(Succeed())
		Eventually(data("grpc-shop")).Should(HaveKey("error"))
		Eventually(w.routeRenderings(ctx)).Should(ConsistOf("Gateway/edge", "TCPRoute/db"))
		Expect(data("tcp-db")()).To(HaveKeyWithValue("route", "db"))

		By("a GRPCRoute its own templates refuse: refused on its status, and named by the blueprint's Rendered condition")
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: refused, namespace: NAMESPACE}
spec:
  parentRefs: [{name: edge, sectionName: http}]
`)
		Eventually(w.routeParentsOf(ctx, routes.KindGRPCRoute, "refused")).Should(ConsistOf(
			And(HavePrefix("edge: False/UnsupportedValue: "), ContainSubstring("no gRPC service here"))))
		Eventually(w.blueprintConditionOf(ctx, gatewrightv1alpha1.ConditionRendered)).Should(
			ContainSubstring("1 route(s) fail to render or apply: GRPCRoute " + w.namespace + "/refused on Gateway " + w.namespace + "/edge"))
	})
})
