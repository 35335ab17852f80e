package translate

import (
	"fmt"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/routes"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
)

// A blueprint that parses can still fail on every Gateway: output that is not YAML, an
// object in a forbidden namespace, an object the API server refuses. Its author should
// not have to read tenants' Gateways to find out, so the blueprint and its GatewayClasses
// count, from the statuses, the Gateways whose render or apply failed and name the first
// few.

// failuresShown bounds how many failing Gateways a message names.
const failuresShown = 3

// RenderFailure is the message of gw's Programmed=False/Invalid of its generation while
// it is accepted: its render or apply failed. ok is false for any other state.
func RenderFailure(gw *gatewayv1.Gateway) (message string, ok bool) {
	accepted := meta.FindStatusCondition(gw.Status.Conditions, string(gatewayv1.GatewayConditionAccepted))
	programmed := meta.FindStatusCondition(gw.Status.Conditions, string(gatewayv1.GatewayConditionProgrammed))
	if accepted == nil || accepted.Status != metav1.ConditionTrue || programmed == nil ||
		programmed.Status != metav1.ConditionFalse || programmed.Reason != string(gatewayv1.GatewayReasonInvalid) ||
		programmed.ObservedGeneration != gw.Generation {
		return "", false
	}
	return programmed.Message, true
}

// routeRenderFailures lists, as "namespace/name on Gateway namespace/name: message" (a
// route of another kind than HTTPRoute named "Kind namespace/name"), the parents among
// gateways on which a route's render or apply failed: Gatewright's
// Accepted=False/UnsupportedValue of the route's generation.
func routeRenderFailures(attached []routes.Route, gateways []gatewayv1.Gateway) []string {
	ours := map[types.NamespacedName]bool{}
	for i := range gateways {
		ours[client.ObjectKeyFromObject(&gateways[i])] = true
	}
	var failures []string
	for _, route := range attached {
		name := route.GetNamespace() + "/" + route.GetName()
		if kind := routes.KindOf(route); kind != routes.KindHTTPRoute {
			name = kind + " " + name
		}
		for _, parent := range routes.Status(route).Parents {
			key, isGateway := attach.ParentGateway(route, parent.ParentRef)
			if failed := failedOn(parent); isGateway && ours[key] && failed != nil && failed.ObservedGeneration == route.GetGeneration() {
				failures = append(failures, name+" on Gateway "+key.String()+": "+quoteShort(failed.Message))
			}
		}
	}
	return failures
}

// FleetRendered sums up the render failures of gateways and of the routes on them as
// the gatewright.dev/Rendered condition, and returns how many Gateways failed.
func FleetRendered(gateways []gatewayv1.Gateway, attached []routes.Route) (Verdict, int32) {
	var failures []string
	for i := range gateways {
		if message, failed := RenderFailure(&gateways[i]); failed {
			failures = append(failures, gateways[i].Namespace+"/"+gateways[i].Name+": "+quoteShort(message))
		}
	}
	routeFailures := routeRenderFailures(attached, gateways)
	if len(failures)+len(routeFailures) == 0 {
		return Verdict{OK: true, Reason: gatewrightv1alpha1.ReasonRendered, Message: "no Gateway or route fails to render or apply"}, 0
	}
	sort.Strings(failures)
	sort.Strings(routeFailures)
	var parts []string
	if len(failures) > 0 {
		parts = append(parts, fmt.Sprintf("%d Gateway(s) fail to render or apply: %s", len(failures), conditions.FirstFew(failures, failuresShown)))
	}
	if len(routeFailures) > 0 {
		parts = append(parts, fmt.Sprintf("%d route(s) fail to render or apply: %s", len(routeFailures), conditions.FirstFew(routeFailures, failuresShown)))
	}
	return Verdict{Reason: gatewrightv1alpha1.ReasonRenderFailed, Message: strings.Join(parts, "; ")}, int32(len(failures))
}

// failedOn is Gatewright's Accepted=False/UnsupportedValue in a route's parent status
// entry, which says the route's render or apply failed there; nil when the entry says
// otherwise or is another controller's.
func failedOn(parent gatewayv1.RouteParentStatus) *metav1.Condition {
	accepted := meta.FindStatusCondition(parent.Conditions, string(gatewayv1.RouteConditionAccepted))
	if !gatewrightv1alpha1.IsGatewright(parent.ControllerName) || accepted == nil || accepted.Status != metav1.ConditionFalse ||
		accepted.Reason != string(gatewayv1.RouteReasonUnsupportedValue) {
		return nil
	}
	return accepted
}

// RouteRenderFailure is the route's render failures on Gatewright's parents, as compared
// across an update.
func RouteRenderFailure(route routes.Route) string {
	var out []string
	for _, parent := range routes.Status(route).Parents {
		if failed := failedOn(parent); failed != nil {
			out = append(out, failed.Message)
		}
	}
	return strings.Join(out, "\n")
}

// quoteShort cuts a Gateway's message to what a summary of several has room for.
func quoteShort(message string) string {
	const room = 512
	if len(message) <= room {
		return message
	}
	return strings.ToValidUTF8(message[:room], "") + "…"
}
