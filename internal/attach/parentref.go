package attach

import (
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

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
