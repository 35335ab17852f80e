// Package attach decides, by the Gateway API rules, which listeners of a Gateway an
// HTTPRoute's parentRef attaches to, and when none, why: parentRef name, namespace,
// sectionName and port, the listener's protocol and allowedRoutes (namespaces and
// kinds), and hostname intersection; whether a route's backendRefs resolve (kind,
// ReferenceGrants, existence); and whether a Gateway's certificateRefs do
// (ReferenceGrants, kind, a usable Secret). It is the one home of these rules: plain Go,
// shared by the controller and the offline commands.
package attach

import (
	"fmt"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
)

// Result is where one parentRef of a route attaches on a Gateway.
type Result struct {
	// Listeners are the names of the listeners the parentRef attaches to, in listener
	// order; empty when it does not attach.
	Listeners []gatewayv1.SectionName
	// Reason and Message say why the parentRef does not attach; empty when it does.
	Reason  gatewayv1.RouteConditionReason
	Message string
}

// Attached tells whether the parentRef attaches to at least one listener.
func (r Result) Attached() bool { return len(r.Listeners) > 0 }

// Attach applies the rules to one parentRef of route on gw. namespaceLabels holds the
// labels of route's namespace, for listeners that select namespaces by label.
//
// The listeners go through three filters in turn, and the reason names the first one
// that leaves none, as the conformance tests expect: sectionName and port
// (NoMatchingParent), then protocol and allowedRoutes (NotAllowedByListeners), then
// hostnames (NoMatchingListenerHostname). So a Gateway where one matching listener
// refuses the namespace and another only the hostnames reports the hostnames.
func Attach(gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, ref gatewayv1.ParentReference, namespaceLabels map[string]string) Result {
	if !refersTo(route, ref, gw) {
		return Result{Reason: gatewayv1.RouteReasonNoMatchingParent,
			Message: fmt.Sprintf("the parentRef does not name Gateway %s/%s", gw.Namespace, gw.Name)}
	}
	matched := 0
	var refusals, hostnames []string
	var out []gatewayv1.SectionName
	accepted := listeners.Attachable(gw.Spec.Listeners)
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		if !matchesListener(ref, l) {
			continue
		}
		matched++
		why := refusal(gw, l, route, namespaceLabels)
		if why == "" && !accepted[l.Name] {
			why = "is not accepted (see its conditions)"
		}
		if why != "" {
			refusals = append(refusals, fmt.Sprintf("listener %s %s", l.Name, why))
			continue
		}
		if !hostnamesIntersect(l.Hostname, route.Spec.Hostnames) {
			hostnames = append(hostnames, string(*l.Hostname))
			continue
		}
		out = append(out, l.Name)
	}
	switch {
	case len(out) > 0:
		return Result{Listeners: out}
	case matched == 0:
		return Result{Reason: gatewayv1.RouteReasonNoMatchingParent,
			Message: fmt.Sprintf("Gateway %s/%s has no listener %s", gw.Namespace, gw.Name, wanted(ref))}
	case len(hostnames) == 0:
		return Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: strings.Join(refusals, "; ")}
	default:
		return Result{Reason: gatewayv1.RouteReasonNoMatchingListenerHostname,
			Message: "no hostname of the route intersects the listener hostnames " + strings.Join(hostnames, ", ")}
	}
}

// Listeners returns the names of gw's listeners that route attaches to through any of
// its parentRefs, in listener order.
func Listeners(gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, namespaceLabels map[string]string) []gatewayv1.SectionName {
	attached := map[gatewayv1.SectionName]bool{}
	for _, ref := range route.Spec.ParentRefs {
		for _, name := range Attach(gw, route, ref, namespaceLabels).Listeners {
			attached[name] = true
		}
	}
	var out []gatewayv1.SectionName
	for _, l := range gw.Spec.Listeners {
		if attached[l.Name] {
			out = append(out, l.Name)
		}
	}
	return out
}
