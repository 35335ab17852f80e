// Package listeners applies the Gateway API rules to a Gateway's listeners before
// anything is programmed: which protocols, tls modes and route kinds a class serves (its
// blueprint says, Serves), which listeners conflict, and what their resolved certificateRefs make of them. It is plain
// Go, shared by the Gateway status, by whatever decides where routes attach, and by the
// templates' .Listeners.
package listeners

import (
	"fmt"
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
	// ListenerSet names the ListenerSet the listener came from; nil for one of the
	// Gateway's own. Listener names are unique only within their Gateway or ListenerSet.
	ListenerSet *SetRef
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

// Evaluate applies the rules to every listener, in order, on a class that serves what
// serves says. certificateRefs holds, by listener name, what resolving each listener's
// certificateRefs found; a listener missing from it has none to resolve. A
// certificateRef that does not resolve gives ResolvedRefs its reason before an invalid
// route kind does: without its certificate the listener serves nothing at all.
func Evaluate(serves Serves, listeners []gatewayv1.Listener, certificateRefs map[gatewayv1.SectionName][]CertificateRef) []Status {
	out := make([]Status, 0, len(listeners))
	for i := range listeners {
		l := &listeners[i]
		out = append(out, evaluate(serves, l, conflict(serves, l, listeners), certificateRefs[l.Name]))
	}
	return out
}

// evaluate applies the rules to l, whose conflict with the listeners beside it is
// conflicted and whose certificateRefs resolved as refs say.
func evaluate(serves Serves, l *gatewayv1.Listener, conflicted gatewayv1.ListenerConditionReason, refs []CertificateRef) Status {
	kinds, resolved := supportedKinds(serves, l)
	s := Status{Name: l.Name, SupportedKinds: kinds, Accepted: gatewayv1.ListenerReasonAccepted, ResolvedRefs: gatewayv1.ListenerReasonResolvedRefs,
		Conflicted: conflicted, CertificateRefs: refs}
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
	switch refusal := serves.refusal(l); {
	case refusal != "":
		s.Accepted = refusal
	case s.Conflicted != gatewayv1.ListenerReasonNoConflicts:
		// A conflicted listener takes no route, so it supports no kind (the
		// conformance suite's mixed TLS modes expect none listed).
		s.Accepted, s.SupportedKinds = s.Conflicted, nil
	}
	return s
}

// Attachable names the listeners routes may attach to on a class that serves what
// serves says: the accepted ones. References play no part in it.
func Attachable(serves Serves, listeners []gatewayv1.Listener) map[gatewayv1.SectionName]bool {
	out := map[gatewayv1.SectionName]bool{}
	for _, s := range Evaluate(serves, listeners, nil) {
		if s.IsAccepted() {
			out[s.Name] = true
		}
	}
	return out
}

// AnyValid tells whether any of statuses, a Gateway's listeners, is valid.
func AnyValid(statuses []Status) bool {
	for _, rules := range statuses {
		if rules.IsValid() {
			return true
		}
	}
	return false
}

// NotValid names, of statuses (a Gateway's listeners), those that are not valid, with
// why, and those that are; it is empty when every listener is valid.
func NotValid(statuses []Status) string {
	var notValid, valid []string
	for _, rules := range statuses {
		if rules.IsValid() {
			valid = append(valid, string(rules.Name))
		} else {
			notValid = append(notValid, fmt.Sprintf("%s (%s)", rules.Name, rules.Reason()))
		}
	}
	if len(notValid) == 0 {
		return ""
	}
	message := "listeners not valid: " + strings.Join(notValid, ", ")
	if len(valid) > 0 {
		message += "; valid: " + strings.Join(valid, ", ")
	}
	return message
}
