package controllers_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

var _ = Describe("Listener status", func() {
	var w world
	BeforeEach(func(ctx SpecContext) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		Eventually(w.classCondition(ctx)).Should(HavePrefix("True/Accepted"))
	})

	It("refuses a listener of a protocol Gatewright does not serve, and programs the Gateway for the others", func(ctx SpecContext) {
		w.gatewayWithListeners(ctx, "web", `
- {name: http, protocol: HTTP, port: 80}
- {name: tcp, protocol: TCP, port: 9000}`)
		Eventually(w.gatewayCondition(ctx, "web", "Accepted")).Should(Equal("True/ListenersNotValid: listeners not valid: tcp (UnsupportedProtocol); valid: http"))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(Equal("True/Programmed: 2 object(s) applied and ready"))
		Eventually(w.listeners(ctx, "web")).Should(Equal([]string{
			"http Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[HTTPRoute] routes=0",
			"tcp Accepted=False/UnsupportedProtocol ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=False/Invalid kinds=[] routes=0",
		}))
	})

	It("does not accept a Gateway none of whose listeners is valid, nor program it", func(ctx SpecContext) {
		w.gatewayWithListeners(ctx, "web", `
- {name: udp, protocol: UDP, port: 53}`)
		Eventually(w.gatewayCondition(ctx, "web", "Accepted")).Should(Equal("False/ListenersNotValid: listeners not valid: udp (UnsupportedProtocol)"))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(Equal("False/Invalid: listeners not valid: udp (UnsupportedProtocol); nothing is rendered, the objects applied before are left as they are"))
		Consistently(func() bool {
			_, err := w.configMap(ctx, "web-config")()
			return apierrors.IsNotFound(err)
		}, "1s").Should(BeTrue(), "nothing is rendered for a Gateway rejected as a whole")
		Eventually(w.listeners(ctx, "web")).Should(Equal([]string{
			"udp Accepted=False/UnsupportedProtocol ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=False/Invalid kinds=[] routes=0",
		}))
	})

	It("reports a route kind Gatewright does not serve, and still attaches the HTTPRoutes the listener allows", func(ctx SpecContext) {
		w.gatewayWithListeners(ctx, "web", `
- {name: http, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: TCPRoute}, {kind: HTTPRoute}]}}
- {name: other, protocol: HTTP, port: 8080}`)
		w.route(ctx, w.namespace, "shop", w.namespace)
		Eventually(w.gatewayCondition(ctx, "web", "Accepted")).Should(Equal("True/ListenersNotValid: listeners not valid: http (InvalidRouteKinds); valid: other"))
		Eventually(w.listeners(ctx, "web")).Should(Equal([]string{
			"http Accepted=True/Accepted ResolvedRefs=False/InvalidRouteKinds Conflicted=<none> Programmed=False/Invalid kinds=[HTTPRoute] routes=1",
			"other Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[HTTPRoute] routes=1",
		}))
	})

	It("refuses listeners that share a port with different protocols, and attaches no route to them", func(ctx SpecContext) {
		w.gatewayWithListeners(ctx, "web", `
- {name: http, protocol: HTTP, port: 80}
- {name: https, protocol: HTTPS, port: 80}
- {name: other, protocol: HTTP, port: 8080}`)
		w.route(ctx, w.namespace, "shop", w.namespace)
		Eventually(w.gatewayCondition(ctx, "web", "Accepted")).Should(Equal("True/ListenersNotValid: listeners not valid: http (ProtocolConflict), https (ProtocolConflict); valid: other"))
		Eventually(w.listeners(ctx, "web")).Should(Equal([]string{
			"http Accepted=False/ProtocolConflict ResolvedRefs=True/ResolvedRefs Conflicted=True/ProtocolConflict Programmed=False/ProtocolConflict kinds=[] routes=0",
			"https Accepted=False/ProtocolConflict ResolvedRefs=True/ResolvedRefs Conflicted=True/ProtocolConflict Programmed=False/ProtocolConflict kinds=[] routes=0",
			"other Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[HTTPRoute] routes=1",
		}))

		By("the conflict ends: Conflicted goes, since a listener without it has none")
		w.gatewayWithListeners(ctx, "web", `
- {name: http, protocol: HTTP, port: 80}
- {name: other, protocol: HTTP, port: 8080}`)
		Eventually(w.listeners(ctx, "web")).Should(Equal([]string{
			"http Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[HTTPRoute] routes=1",
			"other Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[HTTPRoute] routes=1",
		}))
	})

	// Gatewright reports a HostnameConflict too (internal/listeners), but the Gateway
	// API's CRD already refuses the listeners that would conflict by hostname.
	It("cannot be given two listeners with the same port, protocol and hostname: the API server refuses them", func(ctx SpecContext) {
		gw := &gatewayv1.Gateway{}
		Expect(yaml.Unmarshal([]byte(`
metadata: {name: web, namespace: `+w.namespace+`}
spec:
  gatewayClassName: `+w.class+`
  listeners:
  - {name: a, protocol: HTTP, port: 80, hostname: shop.example.com}
  - {name: b, protocol: HTTP, port: 80, hostname: shop.example.com}
`), gw)).To(Succeed())
		Expect(k8s.Create(ctx, gw)).To(MatchError(ContainSubstring("Combination of port, protocol and hostname must be unique")))
	})
})

// gatewayWithListeners creates a Gateway of the world's class with the given listeners
// (a YAML list).
func (w world) gatewayWithListeners(ctx SpecContext, name, listeners string) {
	w.apply(ctx, fmt.Sprintf(`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: %s, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS
  listeners:
%s
`, name, indent(listeners, "  ")))
}

// listeners describes each listener of a Gateway's status in one line: its
// conditions (or "stale" for one of an older generation), supported kinds and attached
// routes.
func (w world) listeners(ctx SpecContext, name string) func() []string {
	return func() []string {
		gw := &gatewayv1.Gateway{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name}, gw)).To(Succeed())
		var out []string
		for _, l := range gw.Status.Listeners {
			line := []string{string(l.Name)}
			for _, t := range []gatewayv1.ListenerConditionType{gatewayv1.ListenerConditionAccepted, gatewayv1.ListenerConditionResolvedRefs, gatewayv1.ListenerConditionConflicted, gatewayv1.ListenerConditionProgrammed} {
				line = append(line, string(t)+"="+listenerCondition(l.Conditions, t, gw.Generation))
			}
			var kinds []string
			for _, k := range l.SupportedKinds {
				kinds = append(kinds, string(k.Kind))
			}
			line = append(line, fmt.Sprintf("kinds=%v routes=%d", kinds, l.AttachedRoutes))
			out = append(out, strings.Join(line, " "))
		}
		return out
	}
}

func listenerCondition(conditions []metav1.Condition, t gatewayv1.ListenerConditionType, generation int64) string {
	for _, c := range conditions {
		if c.Type != string(t) {
			continue
		}
		if c.ObservedGeneration != generation {
			return "stale"
		}
		return string(c.Status) + "/" + c.Reason
	}
	return "<none>"
}
