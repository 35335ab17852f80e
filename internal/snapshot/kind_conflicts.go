package snapshot

import (
	"context"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/translate"
)

// KindConflict is why gw's route table refuses route, an HTTPRoute or a GRPCRoute, for
// sharing a hostname on a listener with an older route of the other kind
// (routing.RefuseKindConflicts); nil when it does not, or when the class, serving what
// serves says, does not serve both kinds. The route's own status cannot learn it from
// gw's record, so it is computed here from what the table is: the other kind's routes on
// gw and on items, its ListenerSets (verdicts the rules' verdicts of them), but those
// cutoff, gw's recorded bound, or their own templates refuse.
func (g *Gatherer) KindConflict(ctx context.Context, gw *gatewayv1.Gateway, serves listeners.Serves, route routes.Route, items []gatewayv1.ListenerSet, verdicts []listeners.SetVerdict, cutoff *gatewrightv1alpha1.RouteCutoff) (*routing.Refusal, error) {
	other := routes.HostnameRival(routes.KindOf(route))
	if other == "" || !serves.RouteKind(routes.KindHTTPRoute) || !serves.RouteKind(routes.KindGRPCRoute) {
		return nil, nil
	}
	sets := attachedOnly(setsOf(items, verdicts))
	others, err := g.kindNaming(ctx, other, gw, sets, map[string][]routes.Route{})
	if err != nil || len(others) == 0 {
		return nil, err
	}
	a, err := g.attached(ctx, gw, serves, nil, append(others, route), sets)
	if err != nil {
		return nil, err
	}
	namespaces := make([]string, len(a.others))
	for i, r := range a.others {
		namespaces[i] = r.GetNamespace()
	}
	refused, err := g.refusedByTemplates(ctx, gw, namespaces)
	if err != nil {
		return nil, err
	}
	self := routes.KeyOf(route)
	in := make([]routing.RouteInput, 0, len(a.others))
	for i, r := range a.others {
		key := routes.KeyOf(r)
		if _, cut := translate.RouteCut(cutoff, "", r); key != self && (cut || refused[key] != "") {
			continue // refused otherwise: it takes no part
		}
		in = append(in, routing.RouteInput{Route: r, Listeners: a.otherListeners[i]})
	}
	routing.RefuseKindConflicts(in, routing.ListenerHostnames(routing.Input{Gateway: gw, ListenerSets: verdicts}))
	for i := range in {
		if routes.KeyOf(in[i].Route) == self {
			return in[i].Refusal, nil
		}
	}
	return nil, nil
}
