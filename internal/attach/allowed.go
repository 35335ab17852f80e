package attach

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
)

// refusal says why listener l does not take route (its protocol, allowedRoutes kinds
// or namespaces), or "" when it does. Hostnames are another step.
func refusal(gw *gatewayv1.Gateway, l *gatewayv1.Listener, route *gatewayv1.HTTPRoute, namespaceLabels map[string]string) string {
	if !listeners.Served(l.Protocol) {
		return fmt.Sprintf("has protocol %s, which takes no HTTPRoute", l.Protocol)
	}
	if !listeners.ListsHTTPRoute(l.AllowedRoutes) {
		return "does not list HTTPRoute in allowedRoutes.kinds"
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
		if route.Namespace != gw.Namespace {
			return fmt.Sprintf("takes routes from namespace %s only", gw.Namespace)
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
