package attach

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routes"
)

// ParentGateway is the Gateway that ref names, in route's namespace unless ref says
// otherwise; isGateway is false when ref names another kind of parent.
func ParentGateway(route routes.Route, ref gatewayv1.ParentReference) (key types.NamespacedName, isGateway bool) {
	return parentGateway(route.GetNamespace(), ref)
}

// parentGateway is ParentGateway for a route of any kind, in namespace.
func parentGateway(namespace string, ref gatewayv1.ParentReference) (key types.NamespacedName, isGateway bool) {
	key = types.NamespacedName{Namespace: namespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		key.Namespace = string(*ref.Namespace)
	}
	isGateway = (ref.Group == nil || *ref.Group == gatewayv1.GroupName) && (ref.Kind == nil || *ref.Kind == "Gateway")
	return key, isGateway
}

// ParentGateways are the Gateways route's parentRefs name: those its changes reach.
func ParentGateways(route routes.Route) []types.NamespacedName {
	var out []types.NamespacedName
	for _, ref := range routes.ParentRefs(route) {
		if key, isGateway := ParentGateway(route, ref); isGateway {
			out = append(out, key)
		}
	}
	return out
}

// ParentRefsTo returns the parentRefs of route that name gw.
func ParentRefsTo(route routes.Route, gw *gatewayv1.Gateway) []gatewayv1.ParentReference {
	var out []gatewayv1.ParentReference
	for _, ref := range routes.ParentRefs(route) {
		if RefersTo(route, ref, gw) {
			out = append(out, ref)
		}
	}
	return out
}

// RefersTo tells whether ref, a parentRef of route, names gw.
func RefersTo(route routes.Route, ref gatewayv1.ParentReference, gw *gatewayv1.Gateway) bool {
	return refersTo(route.GetNamespace(), ref, gw)
}

// refersTo is RefersTo for a route of any kind, in namespace.
func refersTo(namespace string, ref gatewayv1.ParentReference, gw *gatewayv1.Gateway) bool {
	key, isGateway := parentGateway(namespace, ref)
	return isGateway && key == types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
}

// ParentListenerSet is the ListenerSet that ref, a parentRef of a route in namespace,
// names; isListenerSet is false when ref names another kind of parent.
func ParentListenerSet(namespace string, ref gatewayv1.ParentReference) (key types.NamespacedName, isListenerSet bool) {
	key = types.NamespacedName{Namespace: namespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		key.Namespace = string(*ref.Namespace)
	}
	return key, (ref.Group == nil || *ref.Group == gatewayv1.GroupName) && ref.Kind != nil && *ref.Kind == "ListenerSet"
}

// ListenerSetParent is the Gateway ls's parentRef names, in ls's namespace unless it
// says otherwise; isGateway is false when it names another kind of parent.
func ListenerSetParent(ls *gatewayv1.ListenerSet) (key types.NamespacedName, isGateway bool) {
	ref := ls.Spec.ParentRef
	return parentGateway(ls.Namespace, gatewayv1.ParentReference{Group: ref.Group, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name})
}

// RefersToListenerSet tells whether ref, a parentRef of a route in namespace, names ls.
func RefersToListenerSet(namespace string, ref gatewayv1.ParentReference, ls *gatewayv1.ListenerSet) bool {
	key, isListenerSet := ParentListenerSet(namespace, ref)
	return isListenerSet && key == types.NamespacedName{Namespace: ls.Namespace, Name: ls.Name}
}

func matchesListener(ref gatewayv1.ParentReference, l *gatewayv1.Listener) bool {
	if ref.SectionName != nil && *ref.SectionName != l.Name {
		return false
	}
	return ref.Port == nil || *ref.Port == l.Port
}

// wanted describes the listener a parentRef asks for, for messages.
func wanted(ref gatewayv1.ParentReference) string {
	switch {
	case ref.SectionName != nil && ref.Port != nil:
		return fmt.Sprintf("named %s on port %d", *ref.SectionName, *ref.Port)
	case ref.SectionName != nil:
		return fmt.Sprintf("named %s", *ref.SectionName)
	case ref.Port != nil:
		return fmt.Sprintf("on port %d", *ref.Port)
	}
	return "at all"
}
