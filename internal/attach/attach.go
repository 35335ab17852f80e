// Package attach decides, by the Gateway API rules, which listeners of a Gateway a
// route's parentRef attaches to, and when none, why: parentRef name, namespace,
// sectionName and port, the listener's protocol, the route kinds its class serves on it
// and its allowedRoutes (namespaces and kinds), and hostname intersection; whether a
// route's backendRefs resolve (kind, ReferenceGrants, existence); and whether a
// Gateway's certificateRefs do (ReferenceGrants, kind, a usable Secret). It is the one
// home of these rules: plain Go, shared by the controller and the offline commands.
package attach

import (
	"fmt"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
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

// Route is what attaching reads of a route, whatever its kind.
type Route struct {
	// Kind is the route's kind, of group gateway.networking.k8s.io.
	Kind       gatewayv1.Kind
	Namespace  string
	ParentRefs []gatewayv1.ParentReference
	// Hostnames are the route's spec.hostnames; nil for kinds that have none.
	Hostnames []gatewayv1.Hostname
}

// RouteOf is what attaching reads of route, of any standard kind.
func RouteOf(route routes.Route) Route {
	return Route{Kind: gatewayv1.Kind(routes.KindOf(route)), Namespace: route.GetNamespace(), ParentRefs: routes.ParentRefs(route), Hostnames: routes.Hostnames(route)}
}

// Attach applies the rules to one parentRef of route on gw, of a class that serves what
// serves says. namespaceLabels holds the labels of route's namespace, for listeners
// that select namespaces by label.
//
// The listeners go through three filters in turn, and the reason names the first one
// that leaves none, as the conformance tests expect: sectionName and port
// (NoMatchingParent), then protocol and allowedRoutes (NotAllowedByListeners), then
// hostnames (NoMatchingListenerHostname). So a Gateway where one matching listener
// refuses the namespace and another only the hostnames reports the hostnames.
func Attach(gw *gatewayv1.Gateway, serves listeners.Serves, route Route, ref gatewayv1.ParentReference, namespaceLabels map[string]string) Result {
	return ToGateway(gw, serves).Attach(route, ref, namespaceLabels)
}

// Gateway is a Gateway of a class that serves what serves says, its listeners judged
// once for the many routes attached to it: judging them is most of the work of
// attaching one route.
type Gateway struct {
	gw         *gatewayv1.Gateway
	serves     listeners.Serves
	attachable map[gatewayv1.SectionName]bool
}

// ToGateway judges gw's listeners, to attach routes to gw.
func ToGateway(gw *gatewayv1.Gateway, serves listeners.Serves) *Gateway {
	return &Gateway{gw: gw, serves: serves, attachable: listeners.Attachable(serves, gw.Spec.Listeners)}
}

// Attach is the package's Attach on g.
func (g *Gateway) Attach(route Route, ref gatewayv1.ParentReference, namespaceLabels map[string]string) Result {
	if !refersTo(route.Namespace, ref, g.gw) {
		return Result{Reason: gatewayv1.RouteReasonNoMatchingParent,
			Message: fmt.Sprintf("the parentRef does not name Gateway %s/%s", g.gw.Namespace, g.gw.Name)}
	}
	return attachTo("Gateway "+g.gw.Namespace+"/"+g.gw.Name, g.gw.Namespace, g.gw.Spec.Listeners, g.attachable, g.serves, route, ref, namespaceLabels)
}

// AttachToListenerSet is Attach for a parentRef of route naming ls, a ListenerSet whose
// verdict on its parent Gateway (of a class that serves what serves says) is verdict:
// the parentRef attaches to ls's listeners that verdict accepts, by the same three
// filters, allowedRoutes' Same meaning ls's namespace. A ListenerSet not attached to its
// Gateway takes no route.
func AttachToListenerSet(ls *gatewayv1.ListenerSet, verdict listeners.SetVerdict, serves listeners.Serves, route Route, ref gatewayv1.ParentReference, namespaceLabels map[string]string) Result {
	name := "ListenerSet " + ls.Namespace + "/" + ls.Name
	if !RefersToListenerSet(route.Namespace, ref, ls) {
		return Result{Reason: gatewayv1.RouteReasonNoMatchingParent, Message: "the parentRef does not name " + name}
	}
	if !verdict.Accepted {
		return Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: name + " is not attached to its Gateway (see its conditions)"}
	}
	accepted := map[gatewayv1.SectionName]bool{}
	for _, s := range verdict.Listeners {
		if s.IsAccepted() {
			accepted[s.Name] = true
		}
	}
	return attachTo(name, ls.Namespace, listeners.EntriesAsListeners(ls.Spec.Listeners), accepted, serves, route, ref, namespaceLabels)
}

// attachTo applies Attach's filters to ls, the listeners of parent (a Gateway or a
// ListenerSet of namespace), accepted naming those routes may attach to.
func attachTo(parent, namespace string, ls []gatewayv1.Listener, accepted map[gatewayv1.SectionName]bool, serves listeners.Serves, route Route, ref gatewayv1.ParentReference, namespaceLabels map[string]string) Result {
	matched := 0
	var refusals, hostnames []string
	var out []gatewayv1.SectionName
	for i := range ls {
		l := &ls[i]
		if !matchesListener(ref, l) {
			continue
		}
		matched++
		why := refusal(namespace, serves, l, route, namespaceLabels)
		if why == "" && !accepted[l.Name] {
			why = "is not accepted (see its conditions)"
		}
		if why != "" {
			refusals = append(refusals, fmt.Sprintf("listener %s %s", l.Name, why))
			continue
		}
		if !hostnamesIntersect(l.Hostname, route.Hostnames) {
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
			Message: fmt.Sprintf("%s has no listener %s", parent, wanted(ref))}
	case len(hostnames) == 0:
		return Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: strings.Join(refusals, "; ")}
	default:
		return Result{Reason: gatewayv1.RouteReasonNoMatchingListenerHostname,
			Message: "no hostname of the route intersects the listener hostnames " + strings.Join(hostnames, ", ")}
	}
}

// Listeners returns the names of gw's listeners that route attaches to through any of
// its parentRefs, in listener order, on a class that serves what serves says.
func Listeners(gw *gatewayv1.Gateway, serves listeners.Serves, route Route, namespaceLabels map[string]string) []gatewayv1.SectionName {
	return ToGateway(gw, serves).Listeners(route, namespaceLabels)
}

// Listeners is the package's Listeners on g.
func (g *Gateway) Listeners(route Route, namespaceLabels map[string]string) []gatewayv1.SectionName {
	attached := map[gatewayv1.SectionName]bool{}
	for _, ref := range route.ParentRefs {
		for _, name := range g.Attach(route, ref, namespaceLabels).Listeners {
			attached[name] = true
		}
	}
	var out []gatewayv1.SectionName
	for _, l := range g.gw.Spec.Listeners {
		if attached[l.Name] {
			out = append(out, l.Name)
		}
	}
	return out
}
