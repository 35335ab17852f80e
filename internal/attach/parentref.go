package attach

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ParentGateway is the Gateway that ref names, in route's namespace unless ref says
// otherwise; isGateway is false when ref names another kind of parent.
func ParentGateway(route *gatewayv1.HTTPRoute, ref gatewayv1.ParentReference) (key types.NamespacedName, isGateway bool) {
	key = types.NamespacedName{Namespace: route.Namespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		key.Namespace = string(*ref.Namespace)
	}
	isGateway = (ref.Group == nil || *ref.Group == gatewayv1.GroupName) && (ref.Kind == nil || *ref.Kind == "Gateway")
	return key, isGateway
}

// ParentRefsTo returns the parentRefs of route that name gw.
func ParentRefsTo(route *gatewayv1.HTTPRoute, gw *gatewayv1.Gateway) []gatewayv1.ParentReference {
	var out []gatewayv1.ParentReference
	for _, ref := range route.Spec.ParentRefs {
		if refersTo(route, ref, gw) {
			out = append(out, ref)
		}
	}
	return out
}

func refersTo(route *gatewayv1.HTTPRoute, ref gatewayv1.ParentReference, gw *gatewayv1.Gateway) bool {
	key, isGateway := ParentGateway(route, ref)
	return isGateway && key == types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
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
