package listeners

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

const httpRouteKind gatewayv1.Kind = "HTTPRoute"

// Served tells whether Gatewright serves a protocol: HTTP and HTTPS, and only HTTPRoutes
// on them.
func Served(protocol gatewayv1.ProtocolType) bool {
	return protocol == gatewayv1.HTTPProtocolType || protocol == gatewayv1.HTTPSProtocolType
}

// TerminatesTLS tells whether Gatewright terminates TLS on l with its certificateRefs:
// a listener it serves, with tls in mode Terminate (the default). Those are the
// certificateRefs it resolves; the others it never reads.
func TerminatesTLS(l *gatewayv1.Listener) bool {
	return Served(l.Protocol) && l.TLS != nil && (l.TLS.Mode == nil || *l.TLS.Mode == gatewayv1.TLSModeTerminate)
}

// ListsHTTPRoute tells whether allowedRoutes takes HTTPRoutes: when it lists no kinds
// (the protocol's kinds, HTTPRoute among them), or lists HTTPRoute.
func ListsHTTPRoute(allowed *gatewayv1.AllowedRoutes) bool {
	if allowed == nil || len(allowed.Kinds) == 0 {
		return true
	}
	for _, k := range allowed.Kinds {
		if isHTTPRoute(k) {
			return true
		}
	}
	return false
}

// supportedKinds returns the kinds of l's allowedRoutes that Gatewright serves on its
// protocol, or all it serves there when none are listed, and whether every listed
// kind is served. The list is never nil: the API server refuses a null supportedKinds.
func supportedKinds(l *gatewayv1.Listener) ([]gatewayv1.RouteGroupKind, bool) {
	kinds := []gatewayv1.RouteGroupKind{}
	if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 {
		if Served(l.Protocol) {
			kinds = append(kinds, httpRoute())
		}
		return kinds, true
	}
	resolved := true
	for _, k := range l.AllowedRoutes.Kinds {
		if !Served(l.Protocol) || !isHTTPRoute(k) {
			resolved = false
		} else if len(kinds) == 0 {
			kinds = append(kinds, httpRoute())
		}
	}
	return kinds, resolved
}

func httpRoute() gatewayv1.RouteGroupKind {
	group := gatewayv1.Group(gatewayv1.GroupName)
	return gatewayv1.RouteGroupKind{Group: &group, Kind: httpRouteKind}
}

// isHTTPRoute: an unset group means gateway.networking.k8s.io.
func isHTTPRoute(k gatewayv1.RouteGroupKind) bool {
	return k.Kind == httpRouteKind && (k.Group == nil || *k.Group == gatewayv1.GroupName)
}

// conflict tells how l conflicts with the other listeners on its port. Only served
// listeners take part: the spec says a listener of a protocol the implementation does
// not support is simply not accepted, and takes no port from the others.
func conflict(l *gatewayv1.Listener, listeners []gatewayv1.Listener) gatewayv1.ListenerConditionReason {
	reason := gatewayv1.ListenerReasonNoConflicts
	if !Served(l.Protocol) {
		return reason
	}
	for i := range listeners {
		other := &listeners[i]
		if other.Name == l.Name || other.Port != l.Port || !Served(other.Protocol) {
			continue
		}
		if other.Protocol != l.Protocol {
			return gatewayv1.ListenerReasonProtocolConflict
		}
		if hostname(l) == hostname(other) {
			reason = gatewayv1.ListenerReasonHostnameConflict
		}
	}
	return reason
}

// hostname: an unset hostname and an empty one both match every host.
func hostname(l *gatewayv1.Listener) gatewayv1.Hostname {
	if l.Hostname == nil {
		return ""
	}
	return *l.Hostname
}
