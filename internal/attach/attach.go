// Package attach decides, by the Gateway API rules, which listeners of a Gateway an
// HTTPRoute attaches to: parentRef name, namespace, sectionName and port, the
// listener's protocol and allowedRoutes (namespaces and kinds), and hostname
// intersection. It is plain Go, shared by the controller and the offline commands.
package attach

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Listeners returns the names of gw's listeners that route attaches to, in listener
// order. namespaceLabels holds the labels of route's namespace, for listeners that
// select namespaces by label.
func Listeners(gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, namespaceLabels map[string]string) []gatewayv1.SectionName {
	var out []gatewayv1.SectionName
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		for _, ref := range route.Spec.ParentRefs {
			if refersTo(ref, route.Namespace, gw) && matchesListener(ref, l) && accepts(gw, l, route, namespaceLabels) {
				out = append(out, l.Name)
				break
			}
		}
	}
	return out
}

// ParentRefsTo returns the parentRefs of route that name gw.
func ParentRefsTo(route *gatewayv1.HTTPRoute, gw *gatewayv1.Gateway) []gatewayv1.ParentReference {
	var out []gatewayv1.ParentReference
	for _, ref := range route.Spec.ParentRefs {
		if refersTo(ref, route.Namespace, gw) {
			out = append(out, ref)
		}
	}
	return out
}

func refersTo(ref gatewayv1.ParentReference, routeNamespace string, gw *gatewayv1.Gateway) bool {
	group, kind, namespace := gatewayv1.GroupName, "Gateway", routeNamespace
	if ref.Group != nil {
		group = string(*ref.Group)
	}
	if ref.Kind != nil {
		kind = string(*ref.Kind)
	}
	if ref.Namespace != nil {
		namespace = string(*ref.Namespace)
	}
	return group == gatewayv1.GroupName && kind == "Gateway" && namespace == gw.Namespace && string(ref.Name) == gw.Name
}

func matchesListener(ref gatewayv1.ParentReference, l *gatewayv1.Listener) bool {
	if ref.SectionName != nil && *ref.SectionName != l.Name {
		return false
	}
	return ref.Port == nil || *ref.Port == l.Port
}

// accepts applies the listener's side: protocol, kinds, namespaces and hostnames.
func accepts(gw *gatewayv1.Gateway, l *gatewayv1.Listener, route *gatewayv1.HTTPRoute, namespaceLabels map[string]string) bool {
	if !allowsHTTPRoute(l) {
		return false
	}
	from := gatewayv1.NamespacesFromSame
	var selector *metav1.LabelSelector
	if l.AllowedRoutes != nil && l.AllowedRoutes.Namespaces != nil {
		if l.AllowedRoutes.Namespaces.From != nil {
			from = *l.AllowedRoutes.Namespaces.From
		}
		selector = l.AllowedRoutes.Namespaces.Selector
	}
	switch from {
	case gatewayv1.NamespacesFromAll:
	case gatewayv1.NamespacesFromSelector:
		s, err := metav1.LabelSelectorAsSelector(selector)
		if err != nil || selector == nil || !s.Matches(labels.Set(namespaceLabels)) {
			return false
		}
	default:
		if route.Namespace != gw.Namespace {
			return false
		}
	}
	return hostnamesIntersect(l.Hostname, route.Spec.Hostnames)
}

// allowsHTTPRoute: HTTPRoutes attach to HTTP and HTTPS listeners whose allowedRoutes
// kinds are unset or include HTTPRoute.
func allowsHTTPRoute(l *gatewayv1.Listener) bool {
	if l.Protocol != gatewayv1.HTTPProtocolType && l.Protocol != gatewayv1.HTTPSProtocolType {
		return false
	}
	if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 {
		return true
	}
	for _, k := range l.AllowedRoutes.Kinds {
		if k.Kind == "HTTPRoute" && (k.Group == nil || *k.Group == gatewayv1.GroupName) {
			return true
		}
	}
	return false
}

// hostnamesIntersect: a listener without a hostname takes every route; a route
// without hostnames takes every listener; otherwise one pair must match, with a
// leading "*." matching one or more labels.
func hostnamesIntersect(listener *gatewayv1.Hostname, routeHostnames []gatewayv1.Hostname) bool {
	if listener == nil || *listener == "" || len(routeHostnames) == 0 {
		return true
	}
	for _, h := range routeHostnames {
		if hostnameMatches(string(*listener), string(h)) || hostnameMatches(string(h), string(*listener)) {
			return true
		}
	}
	return false
}

// hostnameMatches tells whether pattern (possibly a wildcard) covers name.
func hostnameMatches(pattern, name string) bool {
	if pattern == name {
		return true
	}
	suffix, wildcard := strings.CutPrefix(pattern, "*")
	if !wildcard {
		return false
	}
	name = strings.TrimPrefix(name, "*")
	return strings.HasSuffix(name, suffix) && len(name) > len(suffix)
}
