// Package listeners applies the Gateway API rules to a Gateway's listeners before
// anything is programmed: which protocols and route kinds Gatewright serves, and which
// listeners conflict. It is plain Go, shared by the Gateway status and by whatever
// decides where routes attach.
package listeners

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Status is what the rules say of one listener. Each reason is the one its condition
// carries: Accepted is ListenerReasonAccepted or why the listener is refused,
// ResolvedRefs is ListenerReasonResolvedRefs or ListenerReasonInvalidRouteKinds, and
// Conflicted is ListenerReasonNoConflicts or the conflict.
type Status struct {
	Name           gatewayv1.SectionName
	SupportedKinds []gatewayv1.RouteGroupKind
	Accepted       gatewayv1.ListenerConditionReason
	ResolvedRefs   gatewayv1.ListenerConditionReason
	Conflicted     gatewayv1.ListenerConditionReason
}

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

// NotProgrammedReason is the reason of Programmed=False on a listener that is not
// valid: the conflict for a conflicted one (as the conformance tests expect), Invalid
// otherwise.
func (s Status) NotProgrammedReason() gatewayv1.ListenerConditionReason {
	if s.Conflicted != gatewayv1.ListenerReasonNoConflicts {
		return s.Conflicted
	}
	return gatewayv1.ListenerReasonInvalid
}

// Evaluate applies the rules to every listener, in order.
func Evaluate(listeners []gatewayv1.Listener) []Status {
	out := make([]Status, 0, len(listeners))
	for i := range listeners {
		l := &listeners[i]
		kinds, resolved := supportedKinds(l)
		s := Status{Name: l.Name, SupportedKinds: kinds, Accepted: gatewayv1.ListenerReasonAccepted, ResolvedRefs: gatewayv1.ListenerReasonResolvedRefs, Conflicted: conflict(l, listeners)}
		if !resolved {
			s.ResolvedRefs = gatewayv1.ListenerReasonInvalidRouteKinds
		}
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

// Attachable names the listeners routes may attach to: the accepted ones.
func Attachable(listeners []gatewayv1.Listener) map[gatewayv1.SectionName]bool {
	out := map[gatewayv1.SectionName]bool{}
	for _, s := range Evaluate(listeners) {
		if s.IsAccepted() {
			out[s.Name] = true
		}
	}
	return out
}
