package controllers

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/listeners"
)

// attach records the listeners with their supported kinds and attached routes.
func (s *gatewayStatus) attach(routes []gatewayv1.HTTPRoute, attached map[gatewayv1.SectionName]int32) {
	out := make([]gatewayv1.ListenerStatus, 0, len(s.listenerRules))
	for _, rules := range s.listenerRules {
		status := gatewayv1.ListenerStatus{Name: rules.Name, AttachedRoutes: attached[rules.Name], SupportedKinds: rules.SupportedKinds}
		for _, previous := range s.status.Listeners {
			if previous.Name == rules.Name {
				status.Conditions = previous.Conditions
			}
		}
		out = append(out, status)
	}
	s.status.Listeners = out
}

// setListeners sets the conditions of every listener. programmed and reason say how
// the Gateway's objects fared; a listener that is not valid is not programmed whatever
// they say.
func (s *gatewayStatus) setListeners(programmed bool, reason gatewayv1.ListenerConditionReason) {
	for i := range s.status.Listeners {
		l := &s.status.Listeners[i]
		rules, ok := s.rulesOf(l.Name)
		if !ok {
			continue // a listener gone from the spec; attach drops it
		}
		set := func(t gatewayv1.ListenerConditionType, ok bool, reason gatewayv1.ListenerConditionReason, message string) {
			conditions.Set(&l.Conditions, string(t), ok, string(reason), message, s.gw.Generation)
		}
		set(gatewayv1.ListenerConditionAccepted, rules.IsAccepted(), rules.Accepted, "")
		set(gatewayv1.ListenerConditionResolvedRefs, rules.ResolvedRefs == gatewayv1.ListenerReasonResolvedRefs, rules.ResolvedRefs, rules.ResolvedRefsMessage)
		// The API says a listener without Conflicted has no conflicts; leaving it out
		// keeps every Gateway's status, written and watched, smaller.
		if rules.Conflicted == gatewayv1.ListenerReasonNoConflicts {
			meta.RemoveStatusCondition(&l.Conditions, string(gatewayv1.ListenerConditionConflicted))
		} else {
			set(gatewayv1.ListenerConditionConflicted, true, rules.Conflicted, "")
		}
		if rules.IsValid() {
			set(gatewayv1.ListenerConditionProgrammed, programmed, reason, "")
		} else {
			set(gatewayv1.ListenerConditionProgrammed, false, rules.NotProgrammedReason(), "")
		}
	}
}

func (s *gatewayStatus) rulesOf(name gatewayv1.SectionName) (listeners.Status, bool) {
	for _, rules := range s.listenerRules {
		if rules.Name == name {
			return rules, true
		}
	}
	return listeners.Status{}, false
}

func (s *gatewayStatus) hasValidListener() bool {
	for _, rules := range s.listenerRules {
		if rules.IsValid() {
			return true
		}
	}
	return false
}

// listenersNotValid names the listeners that are not valid, with why, and those that
// are; it is empty when every listener is valid.
func (s *gatewayStatus) listenersNotValid() string {
	var notValid, valid []string
	for _, rules := range s.listenerRules {
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
