package listeners

import (
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ListsKind tells whether allowedRoutes takes routes of kind: when it lists no kinds
// (the protocol's kinds), or lists kind.
func ListsKind(allowed *gatewayv1.AllowedRoutes, kind gatewayv1.Kind) bool {
	if allowed == nil || len(allowed.Kinds) == 0 {
		return true
	}
	for _, k := range allowed.Kinds {
		if isGatewayAPI(k) && k.Kind == kind {
			return true
		}
	}
	return false
}

// supportedKinds returns the kinds of l's allowedRoutes that s serves on it, or all it
// serves there when none are listed, and whether every listed kind is served. The list
// is never nil: the API server refuses a null supportedKinds.
func supportedKinds(s Serves, l *gatewayv1.Listener) ([]gatewayv1.RouteGroupKind, bool) {
	kinds := []gatewayv1.RouteGroupKind{}
	served := s.Kinds(l)
	if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 {
		for _, kind := range served {
			kinds = append(kinds, routeGroupKind(kind))
		}
		return kinds, true
	}
	resolved := true
	for _, k := range l.AllowedRoutes.Kinds {
		switch {
		case !isGatewayAPI(k) || !slices.Contains(served, k.Kind):
			resolved = false
		case !slices.ContainsFunc(kinds, func(listed gatewayv1.RouteGroupKind) bool { return listed.Kind == k.Kind }):
			kinds = append(kinds, routeGroupKind(k.Kind))
		}
	}
	return kinds, resolved
}

func routeGroupKind(kind gatewayv1.Kind) gatewayv1.RouteGroupKind {
	group := gatewayv1.Group(gatewayv1.GroupName)
	return gatewayv1.RouteGroupKind{Group: &group, Kind: kind}
}

// isGatewayAPI: an unset group means gateway.networking.k8s.io.
func isGatewayAPI(k gatewayv1.RouteGroupKind) bool {
	return k.Group == nil || *k.Group == gatewayv1.GroupName
}

// conflict tells how l conflicts with the other listeners on its port. Only served
// listeners take part: the spec says a listener of a protocol the implementation does
// not support is simply not accepted, and takes no port from the others. Listeners of
// different protocols on one port conflict (TCP's among them, as the spec asks), and so
// do TLS listeners of different modes unless the class serves both on one port
// (Serves.WithMixedTLSModes); UDP's port is another than those of the protocols carried
// over TCP.
func conflict(s Serves, l *gatewayv1.Listener, listeners []gatewayv1.Listener) gatewayv1.ListenerConditionReason {
	if s.refusal(l) != "" {
		return gatewayv1.ListenerReasonNoConflicts
	}
	others := make([]*gatewayv1.Listener, 0, len(listeners))
	for i := range listeners {
		if listeners[i].Name != l.Name {
			others = append(others, &listeners[i])
		}
	}
	return conflictWithTaken(s, l, others)
}

// conflictWith tells how served listener l conflicts with other, by conflict's rules:
// ProtocolConflict, HostnameConflict, or NoConflicts.
func (s Serves) conflictWith(l, other *gatewayv1.Listener) gatewayv1.ListenerConditionReason {
	switch {
	case other.Port != l.Port || s.refusal(other) != "" || overUDP(other) != overUDP(l):
		return gatewayv1.ListenerReasonNoConflicts
	case other.Protocol != l.Protocol || l.Protocol == gatewayv1.TLSProtocolType && tlsMode(other) != tlsMode(l) && !s.mixedTLSModes:
		return gatewayv1.ListenerReasonProtocolConflict
	case hostname(l) == hostname(other):
		return gatewayv1.ListenerReasonHostnameConflict
	}
	return gatewayv1.ListenerReasonNoConflicts
}

func overUDP(l *gatewayv1.Listener) bool { return l.Protocol == gatewayv1.UDPProtocolType }

// hostname: an unset hostname and an empty one both match every host.
func hostname(l *gatewayv1.Listener) gatewayv1.Hostname {
	if l.Hostname == nil {
		return ""
	}
	return *l.Hostname
}
