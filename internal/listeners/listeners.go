// Package listeners applies the Gateway API rules to a Gateway's listeners before
// anything is programmed: which protocols and route kinds Gatewright serves, which
// listeners conflict, and what their resolved certificateRefs make of them. It is plain
// Go, shared by the Gateway status, by whatever decides where routes attach, and by the
// templates' .Listeners.
package listeners

import (
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Status is what the rules say of one listener. Each reason is the one its condition
// carries: Accepted is ListenerReasonAccepted or why the listener is refused,
// ResolvedRefs is ListenerReasonResolvedRefs or why a reference does not resolve
// (InvalidCertificateRef, RefNotPermitted, InvalidRouteKinds), and Conflicted is
// ListenerReasonNoConflicts or the conflict.
type Status struct {
	Name           gatewayv1.SectionName
	SupportedKinds []gatewayv1.RouteGroupKind
	Accepted       gatewayv1.ListenerConditionReason
	ResolvedRefs   gatewayv1.ListenerConditionReason
	// ResolvedRefsMessage names each reference that does not resolve, and why; empty
	// when all do.
	ResolvedRefsMessage string
	Conflicted          gatewayv1.ListenerConditionReason
	// CertificateRefs are the listener's certificateRefs as they resolved, in spec order.
	CertificateRefs []CertificateRef
}

// CertificateRef is one certificateRef of a listener and whether it resolves; which
// reason it gets is internal/attach's rule (ResolveCertificateRefs).
type CertificateRef struct {
	Group, Kind, Namespace, Name string
	// Reason is ResolvedRefs when the reference resolves, else InvalidCertificateRef or
	// RefNotPermitted; Message says why in words, empty when it resolves.
	Reason  gatewayv1.ListenerConditionReason
	Message string
}

// Resolved tells whether the reference names a usable certificate the Gateway may use.
func (c CertificateRef) Resolved() bool { return c.Reason == gatewayv1.ListenerReasonResolvedRefs }

// IsAccepted tells whether routes may attach to the listener. A listener whose refs do
// not all resolve stays accepted: the kinds it supports still attach and are counted,
// as the conformance tests expect.
func (s Status) IsAccepted() bool {
	return s.Accepted == gatewayv1.ListenerReasonAccepted
}

// IsValid tells whether the listener can be programmed.
func (s Status) IsValid() bool {
	return s.IsAccepted() && s.ResolvedRefs == gatewayv1.ListenerReasonResolvedRefs
}

// Reason is the one reason a listener is not valid, or ResolvedRefs when it is: the
// refusal for one that is not accepted, else why its references do not resolve.
func (s Status) Reason() gatewayv1.ListenerConditionReason {
	if !s.IsAccepted() {
		return s.Accepted
	}
	return s.ResolvedRefs
}

// NotProgrammedReason is the reason of Programmed=False on a listener that is not
// valid: the conflict for a conflicted one (as the conformance tests expect), Invalid
// otherwise.
func (s Status) NotProgrammedReason() gatewayv1.ListenerConditionReason {
	if s.Conflicted != gatewayv1.ListenerReasonNoConflicts {
		return s.Conflicted
	}
	return gatewayv1.ListenerReasonInvalid
}

// Evaluate applies the rules to every listener, in order. certificateRefs holds, by
// listener name, what resolving each listener's certificateRefs found; a listener
// missing from it has none to resolve. A certificateRef that does not resolve gives
// ResolvedRefs its reason before an invalid route kind does: without its certificate
// the listener serves nothing at all.
func Evaluate(listeners []gatewayv1.Listener, certificateRefs map[gatewayv1.SectionName][]CertificateRef) []Status {
	out := make([]Status, 0, len(listeners))
	for i := range listeners {
		l := &listeners[i]
		kinds, resolved := supportedKinds(l)
		s := Status{Name: l.Name, SupportedKinds: kinds, Accepted: gatewayv1.ListenerReasonAccepted, ResolvedRefs: gatewayv1.ListenerReasonResolvedRefs,
			Conflicted: conflict(l, listeners), CertificateRefs: certificateRefs[l.Name]}
		var unresolved []string
		for _, ref := range s.CertificateRefs {
			if ref.Resolved() {
				continue
			}
			if len(unresolved) == 0 {
				s.ResolvedRefs = ref.Reason
			}
			unresolved = append(unresolved, ref.Message)
		}
		if !resolved {
			if len(unresolved) == 0 {
				s.ResolvedRefs = gatewayv1.ListenerReasonInvalidRouteKinds
			}
			unresolved = append(unresolved, "allowedRoutes.kinds lists a kind Gatewright does not serve on protocol "+string(l.Protocol))
		}
		s.ResolvedRefsMessage = strings.Join(unresolved, "; ")
		switch {
		case !Served(l.Protocol):
			s.Accepted = gatewayv1.ListenerReasonUnsupportedProtocol
		case s.Conflicted != gatewayv1.ListenerReasonNoConflicts:
			s.Accepted = s.Conflicted
		}
		out = append(out, s)
	}
	return out
}

// Attachable names the listeners routes may attach to: the accepted ones. References
// play no part in it.
func Attachable(listeners []gatewayv1.Listener) map[gatewayv1.SectionName]bool {
	out := map[gatewayv1.SectionName]bool{}
	for _, s := range Evaluate(listeners, nil) {
		if s.IsAccepted() {
			out[s.Name] = true
		}
	}
	return out
}
