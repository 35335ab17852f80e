package rollout

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// maxReason bounds Healthy's reason, in bytes, so a failure message built from it stays
// within the status's bound.
const maxReason = 512

// Healthy says whether gw is healthy on revision target, by the Gateway API's own
// conditions: the Gateway Accepted and Programmed at its generation (Programmed covers
// every rendered object being ready), each listener Accepted, Programmed and ResolvedRefs,
// each of routes (the HTTPRoutes attached to gw) Accepted and ResolvedRefs in Gatewright's
// status for gw, and rendering (the Gateway's part 0) recording target. The reason names
// the first thing that is not healthy. Since is when a healthy gw became so without a
// break, as far as the objects record it: the latest of the first render of target and
// the last turn to True of each of those conditions.
func Healthy(gw *gatewayv1.Gateway, routes []*gatewayv1.HTTPRoute, rendering *gatewrightv1alpha1.Rendering, target int64) (ok bool, reason string, since time.Time) {
	var latest latestTransition
	reason = gatewayUnhealthy(gw, rendering, target, &latest)
	if reason == "" {
		reason = routesUnhealthy(gw, routes, &latest)
	}
	if len(reason) > maxReason {
		reason = strings.ToValidUTF8(reason[:maxReason-3], "") + "..."
	}
	if reason != "" {
		return false, reason, time.Time{}
	}
	if rendering.RevisionSince != nil {
		latest.see(rendering.RevisionSince.Time)
	}
	return true, "", time.Time(latest)
}

// latestTransition is the latest time seen.
type latestTransition time.Time

func (l *latestTransition) see(t time.Time) {
	if t.After(time.Time(*l)) {
		*l = latestTransition(t)
	}
}

func gatewayUnhealthy(gw *gatewayv1.Gateway, rendering *gatewrightv1alpha1.Rendering, target int64, latest *latestTransition) string {
	switch {
	case rendering == nil:
		return "its objects are not rendered yet"
	case rendering.Revision != target:
		return fmt.Sprintf("its objects were rendered from revision %d, not %d", rendering.Revision, target)
	}
	// The Rendering records each object's readiness in the write that records the
	// revision: the Gateway's Programmed may still be the last revision's.
	for _, o := range rendering.Objects {
		if !o.Ready {
			return fmt.Sprintf("%s %s is not ready", o.Kind, objectName(o))
		}
	}
	for _, condition := range []string{string(gatewayv1.GatewayConditionAccepted), string(gatewayv1.GatewayConditionProgrammed)} {
		if why := notTrue(gw.Status.Conditions, condition, gw.Generation, latest); why != "" {
			return "Gateway " + why
		}
	}
	listeners := make(map[gatewayv1.SectionName][]metav1.Condition, len(gw.Status.Listeners))
	for _, l := range gw.Status.Listeners {
		listeners[l.Name] = l.Conditions
	}
	for _, l := range gw.Spec.Listeners {
		conditions, ok := listeners[l.Name]
		if !ok {
			return fmt.Sprintf("listener %s has no status", l.Name)
		}
		for _, condition := range []gatewayv1.ListenerConditionType{
			gatewayv1.ListenerConditionAccepted, gatewayv1.ListenerConditionProgrammed, gatewayv1.ListenerConditionResolvedRefs,
		} {
			if why := notTrue(conditions, string(condition), 0, latest); why != "" {
				return fmt.Sprintf("listener %s %s", l.Name, why)
			}
		}
	}
	return ""
}

// routesUnhealthy judges the routes of gw's own namespace that attach to gw. A route of
// another namespace does not gate: its tenant could otherwise hold or roll back another
// tenant's wave with a route of its own. Nor does a parent the listeners refuse, a verdict
// no revision changes.
func routesUnhealthy(gw *gatewayv1.Gateway, routes []*gatewayv1.HTTPRoute, latest *latestTransition) string {
	for _, route := range routes {
		if route.Namespace != gw.Namespace {
			continue
		}
		seen := false
		for _, parent := range route.Status.Parents {
			if parent.ControllerName != gatewrightv1alpha1.ControllerName || !refersTo(parent.ParentRef, route.Namespace, gw) {
				continue
			}
			seen = true
			if notAttached(parent.Conditions) {
				continue
			}
			for _, condition := range []gatewayv1.RouteConditionType{gatewayv1.RouteConditionAccepted, gatewayv1.RouteConditionResolvedRefs} {
				if why := notTrue(parent.Conditions, string(condition), 0, latest); why != "" {
					return fmt.Sprintf("HTTPRoute %s/%s %s", route.Namespace, route.Name, why)
				}
			}
		}
		if !seen {
			return fmt.Sprintf("HTTPRoute %s/%s has no status for this Gateway yet", route.Namespace, route.Name)
		}
	}
	return ""
}

// notAttached says whether a route's parent status says the Gateway's listeners refuse it.
func notAttached(conditions []metav1.Condition) bool {
	c := meta.FindStatusCondition(conditions, string(gatewayv1.RouteConditionAccepted))
	if c == nil || c.Status != metav1.ConditionFalse {
		return false
	}
	switch gatewayv1.RouteConditionReason(c.Reason) {
	case gatewayv1.RouteReasonNotAllowedByListeners, gatewayv1.RouteReasonNoMatchingListenerHostname, gatewayv1.RouteReasonNoMatchingParent:
		return true
	}
	return false
}

// refersTo says whether ref, in a route of namespace routeNamespace, names gw.
func refersTo(ref gatewayv1.ParentReference, routeNamespace string, gw *gatewayv1.Gateway) bool {
	namespace := routeNamespace
	if ref.Namespace != nil {
		namespace = string(*ref.Namespace)
	}
	kindOK := ref.Kind == nil || *ref.Kind == "Gateway"
	groupOK := ref.Group == nil || *ref.Group == gatewayv1.GroupName
	return kindOK && groupOK && namespace == gw.Namespace && string(ref.Name) == gw.Name
}

// notTrue is "" when conditionType is True (at generation, unless generation is 0),
// and then sees when it turned True; else it says what it is instead.
func notTrue(conditions []metav1.Condition, conditionType string, generation int64, latest *latestTransition) string {
	c := meta.FindStatusCondition(conditions, conditionType)
	switch {
	case c == nil:
		return conditionType + " is not reported"
	case c.Status != metav1.ConditionTrue:
		return fmt.Sprintf("%s is %s (%s): %s", conditionType, c.Status, c.Reason, c.Message)
	case generation != 0 && c.ObservedGeneration != generation:
		return fmt.Sprintf("%s is for generation %d, not %d", conditionType, c.ObservedGeneration, generation)
	}
	latest.see(c.LastTransitionTime.Time)
	return ""
}

func objectName(o gatewrightv1alpha1.RenderedObject) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}
