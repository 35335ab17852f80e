package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/translate"
)

// A blueprint that parses can still fail on every Gateway: output that is not YAML, an
// object in a forbidden namespace, an object the API server refuses. Its author should
// not have to read tenants' Gateways to find out, so the blueprint and its GatewayClasses
// count the Gateways whose render or apply failed and name the first few.

// fleetJudge is what the blueprint and GatewayClass reconcilers share: both judge a
// blueprint and sum up how the Gateways it serves render.
type fleetJudge struct {
	client.Client
	Blueprints *render.Cache
	Recorder   record.EventRecorder

	shard shard
}

// setRendered sets obj's gatewright.dev/Rendered condition in conds (whose state was
// before) from how gateways and the routes on them render, records an event when it
// turns, and returns how many Gateways fail.
func (j *fleetJudge) setRendered(ctx context.Context, obj client.Object, conds *[]metav1.Condition, before []metav1.Condition, gateways []gatewayv1.Gateway) (int32, error) {
	routes, err := routesOnGateways(ctx, j.Client, gateways)
	if err != nil {
		return 0, err
	}
	rendered, failing := renderedVerdict(gateways, routes)
	conditions.Set(conds, gatewrightv1alpha1.ConditionRendered, rendered.OK, rendered.Reason, rendered.Message, obj.GetGeneration())
	recordConditionChange(j.Recorder, obj, before, *meta.FindStatusCondition(*conds, gatewrightv1alpha1.ConditionRendered))
	return failing, nil
}

// failuresShown bounds how many failing Gateways a message names.
const failuresShown = 3

// renderFailure is the message of gw's Programmed=False/Invalid of its generation while
// it is accepted: its render or apply failed. ok is false for any other state.
func renderFailure(gw *gatewayv1.Gateway) (message string, ok bool) {
	accepted := meta.FindStatusCondition(gw.Status.Conditions, string(gatewayv1.GatewayConditionAccepted))
	programmed := meta.FindStatusCondition(gw.Status.Conditions, string(gatewayv1.GatewayConditionProgrammed))
	if accepted == nil || accepted.Status != metav1.ConditionTrue || programmed == nil ||
		programmed.Status != metav1.ConditionFalse || programmed.Reason != string(gatewayv1.GatewayReasonInvalid) ||
		programmed.ObservedGeneration != gw.Generation {
		return "", false
	}
	return programmed.Message, true
}

// routeRenderFailures lists, as "namespace/name on Gateway namespace/name: message", the
// parents among gateways on which a route's render or apply failed: Gatewright's
// Accepted=False/UnsupportedValue of the route's generation.
func routeRenderFailures(routes []gatewayv1.HTTPRoute, gateways []gatewayv1.Gateway) []string {
	ours := map[types.NamespacedName]bool{}
	for i := range gateways {
		ours[client.ObjectKeyFromObject(&gateways[i])] = true
	}
	var failures []string
	for i := range routes {
		route := &routes[i]
		for _, parent := range route.Status.Parents {
			key, isGateway := attach.ParentGateway(route, parent.ParentRef)
			if failed := failedOn(parent); isGateway && ours[key] && failed != nil && failed.ObservedGeneration == route.Generation {
				failures = append(failures, route.Namespace+"/"+route.Name+" on Gateway "+key.String()+": "+quoteShort(failed.Message))
			}
		}
	}
	return failures
}

// routesOnGateways lists, once each, the routes that name any of gateways in a parentRef.
func routesOnGateways(ctx context.Context, r client.Reader, gateways []gatewayv1.Gateway) ([]gatewayv1.HTTPRoute, error) {
	seen := map[types.NamespacedName]bool{}
	var out []gatewayv1.HTTPRoute
	for i := range gateways {
		routes, err := routesOf(ctx, r, &gateways[i])
		if err != nil {
			return nil, err
		}
		for _, route := range routes {
			if key := client.ObjectKeyFromObject(&route); !seen[key] {
				seen[key] = true
				out = append(out, route)
			}
		}
	}
	return out, nil
}

// renderedVerdict sums up the render failures of gateways and of the routes on them as
// the gatewright.dev/Rendered condition, and returns how many Gateways failed.
func renderedVerdict(gateways []gatewayv1.Gateway, routes []gatewayv1.HTTPRoute) (translate.Verdict, int32) {
	var failures []string
	for i := range gateways {
		if message, failed := renderFailure(&gateways[i]); failed {
			failures = append(failures, gateways[i].Namespace+"/"+gateways[i].Name+": "+quoteShort(message))
		}
	}
	routeFailures := routeRenderFailures(routes, gateways)
	if len(failures)+len(routeFailures) == 0 {
		return translate.Verdict{OK: true, Reason: gatewrightv1alpha1.ReasonRendered, Message: "no Gateway or route fails to render or apply"}, 0
	}
	sort.Strings(failures)
	sort.Strings(routeFailures)
	var parts []string
	if len(failures) > 0 {
		parts = append(parts, fmt.Sprintf("%d Gateway(s) fail to render or apply: %s", len(failures), firstFew(failures)))
	}
	if len(routeFailures) > 0 {
		parts = append(parts, fmt.Sprintf("%d route(s) fail to render or apply: %s", len(routeFailures), firstFew(routeFailures)))
	}
	return translate.Verdict{Reason: gatewrightv1alpha1.ReasonRenderFailed, Message: strings.Join(parts, "; ")}, int32(len(failures))
}

// firstFew joins the first failuresShown of failures, and counts the rest.
func firstFew(failures []string) string {
	shown := failures[:min(len(failures), failuresShown)]
	out := strings.Join(shown, "; ")
	if more := len(failures) - len(shown); more > 0 {
		out += fmt.Sprintf("; and %d more", more)
	}
	return out
}

// failedOn is Gatewright's Accepted=False/UnsupportedValue in a route's parent status
// entry, which says the route's render or apply failed there; nil when the entry says
// otherwise or is another controller's.
func failedOn(parent gatewayv1.RouteParentStatus) *metav1.Condition {
	accepted := meta.FindStatusCondition(parent.Conditions, string(gatewayv1.RouteConditionAccepted))
	if parent.ControllerName != gatewrightv1alpha1.ControllerName || accepted == nil || accepted.Status != metav1.ConditionFalse ||
		accepted.Reason != string(gatewayv1.RouteReasonUnsupportedValue) {
		return nil
	}
	return accepted
}

// routeFailed is the route's render failures on Gatewright's parents, as compared
// across an update.
func routeFailed(route *gatewayv1.HTTPRoute) string {
	var out []string
	for _, parent := range route.Status.Parents {
		if failed := failedOn(parent); failed != nil {
			out = append(out, failed.Message)
		}
	}
	return strings.Join(out, "\n")
}

// routeRenderFailureChanged is renderFailureChanged for routes.
var routeRenderFailureChanged = predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool { return routeFailed(e.Object.(*gatewayv1.HTTPRoute)) != "" },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return routeFailed(e.ObjectOld.(*gatewayv1.HTTPRoute)) != routeFailed(e.ObjectNew.(*gatewayv1.HTTPRoute))
	},
	DeleteFunc: func(e event.DeleteEvent) bool {
		route, isRoute := e.Object.(*gatewayv1.HTTPRoute)
		return !isRoute || routeFailed(route) != ""
	},
}

// quoteShort cuts a Gateway's message to what a summary of several has room for.
func quoteShort(message string) string {
	const room = 512
	if len(message) <= room {
		return message
	}
	return strings.ToValidUTF8(message[:room], "") + "…"
}

// renderFailureChanged lets through the Gateway events that change whether, or how, its
// render failed, so that a fleet settling does not wake the blueprint and class once per
// Gateway.
var renderFailureChanged = predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool {
		_, failed := renderFailure(e.Object.(*gatewayv1.Gateway))
		return failed
	},
	UpdateFunc: func(e event.UpdateEvent) bool {
		before, failedBefore := renderFailure(e.ObjectOld.(*gatewayv1.Gateway))
		after, failedAfter := renderFailure(e.ObjectNew.(*gatewayv1.Gateway))
		return failedBefore != failedAfter || before != after
	},
	DeleteFunc: func(e event.DeleteEvent) bool {
		gw, isGateway := e.Object.(*gatewayv1.Gateway)
		if !isGateway {
			return true // a tombstone: it may have been failing
		}
		_, failed := renderFailure(gw)
		return failed
	},
}
