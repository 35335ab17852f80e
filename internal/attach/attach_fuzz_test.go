package attach

import (
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/fuzzchoices"
	"github.com/gatewright/gatewright/internal/listeners"
)

var (
	fuzzNamespaces = []string{"infra", "team-a", "team-b"}
	fuzzFroms      = []*gatewayv1.FromNamespaces{nil, new(gatewayv1.NamespacesFromSame), new(gatewayv1.NamespacesFromAll), new(gatewayv1.NamespacesFromSelector), new(gatewayv1.FromNamespaces("Other"))}
	fuzzSelectors  = []*metav1.LabelSelector{nil, {}, {MatchLabels: map[string]string{"shared": "true"}}, {MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "shared", Operator: "Bogus"}}}}
	fuzzLabels     = []map[string]string{nil, {"shared": "true"}, {"shared": "false"}}
	fuzzProtocols  = []gatewayv1.ProtocolType{gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType, gatewayv1.TCPProtocolType}
	fuzzKinds      = [][]gatewayv1.RouteGroupKind{nil, {{Kind: "HTTPRoute"}}, {{Kind: "GRPCRoute"}}}
)

// fuzzGateway is Gateway infra/web with up to four listeners taking routes from the
// namespaces their allowedRoutes say, the valid and the invalid.
func fuzzGateway(c *fuzzchoices.Choices) *gatewayv1.Gateway {
	gw := &gatewayv1.Gateway{}
	gw.Namespace, gw.Name, gw.Spec.GatewayClassName = "infra", "web", "internet"
	for i := range 1 + c.Pick(4) {
		l := gatewayv1.Listener{Name: gatewayv1.SectionName(fmt.Sprintf("l%d", i)), Port: gatewayv1.PortNumber(80 + c.Pick(2)), Protocol: fuzzchoices.From(c, fuzzProtocols)}
		if l.Protocol == gatewayv1.HTTPSProtocolType {
			l.TLS = &gatewayv1.ListenerTLSConfig{Mode: new(gatewayv1.TLSModeTerminate)}
		}
		if c.Pick(2) == 0 {
			l.AllowedRoutes = &gatewayv1.AllowedRoutes{Kinds: fuzzchoices.From(c, fuzzKinds)}
			if from := fuzzchoices.From(c, fuzzFroms); from != nil || c.Pick(2) == 0 {
				l.AllowedRoutes.Namespaces = &gatewayv1.RouteNamespaces{From: from, Selector: fuzzchoices.From(c, fuzzSelectors)}
			}
		}
		gw.Spec.Listeners = append(gw.Spec.Listeners, l)
	}
	return gw
}

// fuzzParentRef names the Gateway, or one like it, and maybe a listener and a port.
func fuzzParentRef(c *fuzzchoices.Choices) gatewayv1.ParentReference {
	ref := gatewayv1.ParentReference{Name: fuzzchoices.From(c, []gatewayv1.ObjectName{"web", "web", "other"})}
	if ns := fuzzchoices.From(c, []string{"", "infra", "team-a"}); ns != "" {
		ref.Namespace = new(gatewayv1.Namespace(ns))
	}
	if c.Pick(4) == 0 {
		ref.Kind = new(gatewayv1.Kind("Service"))
	}
	if c.Pick(2) == 0 {
		ref.SectionName = new(gatewayv1.SectionName(fmt.Sprintf("l%d", c.Pick(5))))
	}
	if c.Pick(2) == 0 {
		ref.Port = new(gatewayv1.PortNumber(80 + c.Pick(3)))
	}
	return ref
}

// mayTake is the rule a listener's allowedRoutes and protocol state for an HTTPRoute
// of namespace with namespaceLabels, written apart from the package's: the namespaces
// its from admits (Same when unset, and when the value is unknown), and HTTPRoute among
// its kinds.
func mayTake(l gatewayv1.Listener, namespace string, namespaceLabels map[string]string) bool {
	if l.Protocol != gatewayv1.HTTPProtocolType && l.Protocol != gatewayv1.HTTPSProtocolType {
		return false
	}
	if l.AllowedRoutes == nil {
		return namespace == "infra"
	}
	if kinds := l.AllowedRoutes.Kinds; len(kinds) > 0 && !slices.ContainsFunc(kinds, func(k gatewayv1.RouteGroupKind) bool { return k.Kind == "HTTPRoute" }) {
		return false
	}
	ns := l.AllowedRoutes.Namespaces
	switch {
	case ns == nil || ns.From == nil:
		return namespace == "infra"
	case *ns.From == gatewayv1.NamespacesFromAll:
		return true
	case *ns.From == gatewayv1.NamespacesFromSelector:
		s := ns.Selector
		if s == nil || len(s.MatchExpressions) > 0 {
			return false // none, or one that does not parse
		}
		for k, v := range s.MatchLabels {
			if namespaceLabels[k] != v {
				return false
			}
		}
		return true
	}
	return namespace == "infra"
}

// FuzzAttach attaches tenants' HTTPRoutes, whatever their parentRefs say, to Gateway
// listeners of every allowedRoutes, and checks each listener attached to against the
// rules written apart: a parentRef naming the Gateway (in the route's namespace unless
// it says another), the listener it names by sectionName and port, and a listener
// that takes the route's namespace and kind. A route never attaches where the Gateway
// owner did not let its namespace in; and a parentRef that attaches nowhere says why.
func FuzzAttach(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x03\x00\x00\x00\x01\x02\x00\x01\x01\x02\x03\x01\x01\x02\x00\x00\x01\x01\x01\x00\x01\x01\x02\x00\x00\x00"))
	f.Add([]byte("\x02\x01\x01\x00\x03\x00\x02\x00\x02\x00\x01\x00\x01\x00\x02\x01\x01\x01\x01\x00\x02\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := fuzzchoices.New(data)
		gw := fuzzGateway(c)
		route := Route{Kind: "HTTPRoute", Namespace: fuzzchoices.From(c, fuzzNamespaces)}
		labels := fuzzchoices.From(c, fuzzLabels)
		for range 1 + c.Pick(3) {
			route.ParentRefs = append(route.ParentRefs, fuzzParentRef(c))
		}
		g := ToGateway(gw, listeners.Serves{})
		attachable := listeners.Attachable(listeners.Serves{}, gw.Spec.Listeners)
		for _, ref := range route.ParentRefs {
			res := g.Attach(route, ref, labels)
			if !res.Attached() && (res.Reason == "" || res.Message == "") {
				t.Fatalf("parentRef %+v attaches nowhere and says not why", ref)
			}
			namespace := route.Namespace
			if ref.Namespace != nil {
				namespace = string(*ref.Namespace)
			}
			names := ref.Name == "web" && namespace == "infra" && ref.Kind == nil
			for _, name := range res.Listeners {
				i := slices.IndexFunc(gw.Spec.Listeners, func(l gatewayv1.Listener) bool { return l.Name == name })
				if i < 0 || !names {
					t.Fatalf("parentRef %+v attaches to %s", ref, name)
				}
				l := gw.Spec.Listeners[i]
				if ref.SectionName != nil && *ref.SectionName != l.Name || ref.Port != nil && *ref.Port != l.Port {
					t.Fatalf("parentRef %+v attaches to listener %s on port %d", ref, l.Name, l.Port)
				}
				if !attachable[l.Name] || !mayTake(l, route.Namespace, labels) {
					t.Fatalf("a route of namespace %s (labels %v) attaches to listener %+v", route.Namespace, labels, l)
				}
			}
		}
	})
}
