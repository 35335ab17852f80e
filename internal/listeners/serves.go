package listeners

import (
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The route kinds of the Gateway API, all of group gateway.networking.k8s.io.
const (
	HTTPRouteKind gatewayv1.Kind = "HTTPRoute"
	GRPCRouteKind gatewayv1.Kind = "GRPCRoute"
	TLSRouteKind  gatewayv1.Kind = "TLSRoute"
	TCPRouteKind  gatewayv1.Kind = "TCPRoute"
	UDPRouteKind  gatewayv1.Kind = "UDPRoute"
)

// ProtocolKinds are the route kinds a listener of protocol takes, as the Gateway API
// says, whatever a class serves: a TLSRoute on a TLS listener in either mode
// (Passthrough is its core support, Terminate extended). The order is supportedKinds'.
func ProtocolKinds(protocol gatewayv1.ProtocolType) []gatewayv1.Kind {
	return kindsOf[protocol]
}

var kindsOf = map[gatewayv1.ProtocolType][]gatewayv1.Kind{
	gatewayv1.HTTPProtocolType:  {HTTPRouteKind, GRPCRouteKind},
	gatewayv1.HTTPSProtocolType: {HTTPRouteKind, GRPCRouteKind},
	gatewayv1.TLSProtocolType:   {TLSRouteKind},
	gatewayv1.TCPProtocolType:   {TCPRouteKind},
	gatewayv1.UDPProtocolType:   {UDPRouteKind},
}

// Serves is what a class's data plane implements, as its blueprint says (spec.serves):
// the listener protocols, the tls modes of TLS listeners, and the route kinds. The zero
// value is what a blueprint that says nothing serves: HTTP and HTTPS, TLS terminated,
// HTTPRoutes.
type Serves struct {
	protocols  []gatewayv1.ProtocolType
	tlsModes   []gatewayv1.TLSModeType
	routeKinds []gatewayv1.Kind
	// mixedTLSModes: TLS listeners of both modes may share a port (the class claims
	// Gateway API's TLSRouteModeMixed).
	mixedTLSModes bool
	// listenerSets: the class claims Gateway API's ListenerSet feature, so its Gateways
	// may take the listeners of the ListenerSets they allow. A data plane that never heard
	// of them would be handed listeners it does not expect: without the claim none attach.
	listenerSets bool
}

// NewServes is what a blueprint serves that lists these; a list left empty keeps its
// default.
func NewServes(protocols []gatewayv1.ProtocolType, tlsModes []gatewayv1.TLSModeType, routeKinds []gatewayv1.Kind) Serves {
	return Serves{protocols: protocols, tlsModes: tlsModes, routeKinds: routeKinds}
}

// WithMixedTLSModes is s where TLS listeners that terminate and TLS listeners that pass
// through may share a port: what a class claiming TLSRouteModeMixed serves. Without it,
// they conflict (ProtocolConflict), as the Gateway API asks.
func (s Serves) WithMixedTLSModes() Serves {
	s.mixedTLSModes = true
	return s
}

// WithListenerSets is s where Gateways may take the listeners of ListenerSets: what a
// class claiming ListenerSet serves.
func (s Serves) WithListenerSets() Serves {
	s.listenerSets = true
	return s
}

// ListenerSets tells whether the class's Gateways may take ListenerSets' listeners.
func (s Serves) ListenerSets() bool { return s.listenerSets }

// Protocol tells whether listeners of protocol are served.
func (s Serves) Protocol(protocol gatewayv1.ProtocolType) bool {
	if len(s.protocols) == 0 {
		return protocol == gatewayv1.HTTPProtocolType || protocol == gatewayv1.HTTPSProtocolType
	}
	return slices.Contains(s.protocols, protocol)
}

// TLSMode tells whether TLS listeners of mode are served.
func (s Serves) TLSMode(mode gatewayv1.TLSModeType) bool {
	if len(s.tlsModes) == 0 {
		return mode == gatewayv1.TLSModeTerminate
	}
	return slices.Contains(s.tlsModes, mode)
}

// RouteKind tells whether routes of kind (group gateway.networking.k8s.io) are served.
func (s Serves) RouteKind(kind gatewayv1.Kind) bool {
	if len(s.routeKinds) == 0 {
		return kind == HTTPRouteKind
	}
	return slices.Contains(s.routeKinds, kind)
}

// Kinds are the route kinds served on l: those its protocol takes (ProtocolKinds) that
// the class serves, in that order. A listener that is not served takes none.
func (s Serves) Kinds(l *gatewayv1.Listener) []gatewayv1.Kind {
	if s.refusal(l) != "" {
		return nil
	}
	var out []gatewayv1.Kind
	for _, kind := range ProtocolKinds(l.Protocol) {
		if s.RouteKind(kind) {
			out = append(out, kind)
		}
	}
	return out
}

// Takes tells whether l, served, takes routes of kind by its protocol; its
// allowedRoutes may still refuse them (ListsKind).
func (s Serves) Takes(l *gatewayv1.Listener, kind gatewayv1.Kind) bool {
	return slices.Contains(s.Kinds(l), kind)
}

// TerminatesTLS tells whether Gatewright terminates TLS on l with its certificateRefs:
// a listener it serves, with tls in mode Terminate (the default). Those are the
// certificateRefs it resolves; the others (a Passthrough listener's) it never reads.
func (s Serves) TerminatesTLS(l *gatewayv1.Listener) bool {
	return s.refusal(l) == "" && MayTerminateTLS(l)
}

// MayTerminateTLS tells whether TLS may be terminated on l with its certificateRefs on
// a class that serves it: whatever the class serves, what TerminatesTLS tells can be
// true only of such a listener.
func MayTerminateTLS(l *gatewayv1.Listener) bool {
	return l.TLS != nil && tlsMode(l) == gatewayv1.TLSModeTerminate
}

// refusal is why l is not served, as the reason its Accepted condition takes, or "":
// its protocol, else, for a TLS listener, its tls mode. An HTTPS listener always
// terminates TLS, whatever tlsModes says.
func (s Serves) refusal(l *gatewayv1.Listener) gatewayv1.ListenerConditionReason {
	switch {
	case !s.Protocol(l.Protocol):
		return gatewayv1.ListenerReasonUnsupportedProtocol
	case l.Protocol == gatewayv1.TLSProtocolType && !s.TLSMode(tlsMode(l)):
		return gatewayv1.ListenerReasonUnsupportedValue
	}
	return ""
}

// tlsMode is l's tls.mode; unset means Terminate, as the API defaults it.
func tlsMode(l *gatewayv1.Listener) gatewayv1.TLSModeType {
	if l.TLS == nil || l.TLS.Mode == nil {
		return gatewayv1.TLSModeTerminate
	}
	return *l.TLS.Mode
}
