package diff

import (
	"cmp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/translate"
)

// gatewayConditions are the conditions the controller writes of a Gateway's result
// before applying it, with translate's own functions: Accepted (False/InvalidParameters
// when the result refuses the Gateway), Programmed and the gatewright.dev/...Affected
// conditions. None where the Gateway is not there.
func gatewayConditions(o outcome) []metav1.Condition {
	if o.gateway == nil {
		return nil
	}
	var out []metav1.Condition
	if o.res.Refused() {
		conditions.Set(&out, string(gatewayv1.GatewayConditionAccepted), false, string(gatewayv1.GatewayReasonInvalidParameters), o.res.Err.Error(), 0)
	} else {
		conditions.Set(&out, string(gatewayv1.GatewayConditionAccepted), true, string(gatewayv1.GatewayReasonAccepted), "", 0)
	}
	programmed := o.res.Programmed()
	conditions.Set(&out, string(gatewayv1.GatewayConditionProgrammed), programmed.OK, programmed.Reason, programmed.Message, 0)
	if o.res.Values != nil {
		translate.SetAffected(&out, 0, o.res.Values.Policies)
	}
	return out
}

// routeConditions are those of a route's parent status on gateway: Accepted and the
// ...Affected conditions. None where the route is not attached there.
func routeConditions(o routeOutcome, gateway string) []metav1.Condition {
	if o.route == nil {
		return nil
	}
	var out []metav1.Condition
	accepted := o.res.RouteAccepted(gateway)
	conditions.Set(&out, string(gatewayv1.RouteConditionAccepted), accepted.OK, accepted.Reason, accepted.Message, 0)
	if o.res.Values != nil {
		translate.SetAffected(&out, 0, o.res.Values.Policies)
	}
	return out
}

// conditionChanges compares two lists of conditions by type: status, reason or message.
// The message of Programmed=True counts the objects, which the objects listed already
// show changing: it alone is no news.
func conditionChanges(old, now []metav1.Condition) []ConditionChange {
	out := []ConditionChange{}
	for _, was := range old {
		is := conditionOf(now, was.Type)
		countOnly := is != nil && is.Type == string(gatewayv1.GatewayConditionProgrammed) && is.Status == metav1.ConditionTrue
		if is == nil {
			out = append(out, ConditionChange{Type: was.Type, Old: statusReason(&was)})
		} else if is.Status != was.Status || is.Reason != was.Reason || (is.Message != was.Message && !countOnly) {
			out = append(out, ConditionChange{Type: was.Type, Old: statusReason(&was), New: statusReason(is), Message: is.Message})
		}
	}
	for i := range now {
		if conditionOf(old, now[i].Type) == nil {
			out = append(out, ConditionChange{Type: now[i].Type, New: statusReason(&now[i]), Message: now[i].Message})
		}
	}
	slices.SortFunc(out, func(a, b ConditionChange) int { return cmp.Compare(a.Type, b.Type) })
	return out
}

func conditionOf(conds []metav1.Condition, conditionType string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == conditionType {
			return &conds[i]
		}
	}
	return nil
}

func statusReason(c *metav1.Condition) string {
	return string(c.Status) + "/" + c.Reason
}
