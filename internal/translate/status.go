package translate

import (
	"errors"
	"fmt"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/values"
)

// Refused tells whether the result's error refuses the Gateway as a whole: its class's
// parameters, the blueprint or a parametersRef cannot be used. Gateway API then asks for
// Accepted=False/InvalidParameters, the message being Err's.
func (r *Result) Refused() bool {
	var invalid *InvalidParametersError
	var refErr *values.ParametersRefError
	return errors.As(r.Err, &invalid) || errors.As(r.Err, &refErr)
}

// Programmed is the Programmed condition of a Gateway whose translation gave r: what an
// error, or templates waiting for a dependency, make it. A result that renders is
// Programmed once its objects are applied and ready, which only the cluster tells: the
// controller names the applied objects that are not ready yet in notReady, and they
// wait as templates do; its message counts the objects.
func (r *Result) Programmed(notReady ...string) Verdict {
	switch {
	case r.Refused():
		return Verdict{Reason: string(gatewayv1.GatewayReasonInvalid), Message: "the Gateway is not accepted"}
	case r.Err != nil:
		return Verdict{Reason: string(gatewayv1.GatewayReasonInvalid), Message: r.Err.Error() + "; the objects applied before are left as they are"}
	case len(r.Output.Waiting)+len(notReady) > 0:
		waiting := make([]string, 0, len(r.Output.Waiting)+len(notReady))
		for _, w := range r.Output.Waiting {
			waiting = append(waiting, w.String())
		}
		waiting = append(waiting, notReady...)
		return Verdict{Reason: string(gatewayv1.GatewayReasonPending), Message: "waiting: " + strings.Join(waiting, "; ")}
	}
	return Verdict{OK: true, Reason: string(gatewayv1.GatewayReasonProgrammed), Message: fmt.Sprintf("%d object(s) applied and ready", len(r.Output.Objects))}
}

// RouteAccepted is the Accepted condition of a route's parent status on gateway
// (namespace/name) when it attaches there and its translation gave r.
func (r *Result) RouteAccepted(gateway string) Verdict {
	if r.Err != nil {
		message, prefix := r.Err.Error(), "Gateway "+gateway+": "
		if !strings.HasPrefix(message, prefix) { // an error of the Gateway's own names it already
			message = prefix + message
		}
		return Verdict{Reason: string(gatewayv1.RouteReasonUnsupportedValue), Message: message + "; the objects applied before are left as they are"}
	}
	return Verdict{OK: true, Reason: string(gatewayv1.RouteReasonAccepted)}
}

// RecordedCutoff is c as a Gateway's record keeps it; nil when every route fit.
func RecordedCutoff(c *routing.Cutoff) *gatewrightv1alpha1.RouteCutoff {
	if c == nil {
		return nil
	}
	return &gatewrightv1alpha1.RouteCutoff{CreationTimestamp: c.CreationTimestamp, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name, Message: c.Message}
}

// cutoffOf is the cutoff a Gateway's record keeps; nil when it keeps none.
func cutoffOf(recorded *gatewrightv1alpha1.RouteCutoff) *routing.Cutoff {
	if recorded == nil {
		return nil
	}
	return &routing.Cutoff{CreationTimestamp: recorded.CreationTimestamp, Kind: recorded.Kind, Namespace: recorded.Namespace, Name: recorded.Name, Message: recorded.Message}
}

// RouteCut is the Accepted condition of route, of any kind, on gateway when the cutoff
// the Gateway's record keeps leaves it out; false when it does not.
func RouteCut(recorded *gatewrightv1alpha1.RouteCutoff, gateway string, route routes.Route) (Verdict, bool) {
	cutoff := cutoffOf(recorded)
	if !cutoff.Refuses(route) {
		return Verdict{}, false
	}
	return Verdict{Reason: routing.ReasonRouteLimit, Message: "Gateway " + gateway + ": " + cutoff.Message + "; left out of its configuration"}, true
}

// RouteRefusal is why the route's templates refused it on gateway, as the route's record
// keeps it and its Gateway's table says it; false when they did not, or when the error may
// pass by itself (a transient one refuses nothing).
func (r *Result) RouteRefusal(gateway string) (string, bool) {
	if Classify(r.Err) != InputError {
		return "", false
	}
	return conditions.Truncate(r.RouteAccepted(gateway).Message, routeRefusalLength), true
}

// routeRefusalLength bounds the message a route's record keeps of its refusal.
const routeRefusalLength = 1024
