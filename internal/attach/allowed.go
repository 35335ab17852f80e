package attach

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
)

// refusal says why listener l does not take route (its protocol, the kinds serves
// has it take, its allowedRoutes kinds or namespaces), or "" when it does: a route
// attaches only to a listener whose supportedKinds list its kind. Hostnames are another
// step. namespace is that of the Gateway or ListenerSet that lists l: allowedRoutes'
// Same means it.
func refusal(namespace string, serves listeners.Serves, l *gatewayv1.Listener, route Route, namespaceLabels map[string]string) string {
	if !serves.RouteKind(route.Kind) {
		return fmt.Sprintf("is of a GatewayClass that serves no %s", route.Kind)
	}
	if !serves.Takes(l, route.Kind) {
		return fmt.Sprintf("has protocol %s, which takes no %s", l.Protocol, route.Kind)
	}
	if !listeners.ListsKind(l.AllowedRoutes, route.Kind) {
		return fmt.Sprintf("does not list %s in allowedRoutes.kinds", route.Kind)
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
			return fmt.Sprintf("selects namespaces by label, and not namespace %s", route.Namespace)
		}
	default:
		if route.Namespace != namespace {
			return fmt.Sprintf("takes routes from namespace %s only", namespace)
		}
	}
	return ""
}

// SameNamespaceOnly tells whether every listener of gw takes routes of gw's namespace
// only: then no route of another namespace can attach, and a reader of gw's namespace
// sees every route that may.
func SameNamespaceOnly(gw *gatewayv1.Gateway) bool {
	for _, l := range gw.Spec.Listeners {
		if from := namespacesFrom(&l); from != gatewayv1.NamespacesFromSame {
			return false
		}
	}
	return true
}

// SelectsByLabels tells whether a listener of gw takes routes by their namespace's
// labels: only then do namespaces' labels decide what attaches.
func SelectsByLabels(gw *gatewayv1.Gateway) bool {
	for _, l := range gw.Spec.Listeners {
		if namespacesFrom(&l) == gatewayv1.NamespacesFromSelector {
			return true
		}
	}
	return false
}

func namespacesFrom(l *gatewayv1.Listener) gatewayv1.FromNamespaces {
	if l.AllowedRoutes != nil && l.AllowedRoutes.Namespaces != nil && l.AllowedRoutes.Namespaces.From != nil {
		return *l.AllowedRoutes.Namespaces.From
	}
	return gatewayv1.NamespacesFromSame
}
