package translate

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routing"
)

// A command reads which routes the controller left out for a bound from the Gateway's
// record, since the bounds are the operator's: it neither applies its own limits nor
// serves a route the record says is out.
func TestRouteTableTakesTheRecordedCutoffOverLimits(t *testing.T) {
	listener := gatewayv1.Listener{Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80}
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "web"}, Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{listener}}}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	snap := func() *Gateway {
		g := &Gateway{Gateway: gw, Listeners: listeners.Evaluate(listeners.Serves{}, gw.Spec.Listeners, nil)}
		for i, name := range []string{"old", "mid", "new"} {
			r := gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, CreationTimestamp: metav1.NewTime(base.Add(time.Duration(i) * time.Minute))}}
			g.Routes = append(g.Routes, &r)
			g.RouteInputs = append(g.RouteInputs, routing.RouteInput{Route: &r, Listeners: []gatewayv1.SectionName{"http"}})
		}
		return g
	}
	accepted := func(table *routing.Table) []string {
		var out []string
		for _, v := range table.Routes {
			if v.Accepted {
				out = append(out, v.Name)
			}
		}
		return out
	}
	tests := []struct {
		name string
		set  func(*Gateway)
		want []string
	}{
		{name: "the controller applies its limits", set: func(g *Gateway) { g.RouteLimits = routing.Limits{Routes: 1} }, want: []string{"old"}},
		{name: "a record with no cutoff serves every route, whatever the limits", set: func(g *Gateway) {
			g.RouteLimits, g.CutoffRecorded = routing.Limits{Routes: 1}, true
		}, want: []string{"mid", "new", "old"}},
		{name: "a recorded cutoff leaves out its route and the newer ones", set: func(g *Gateway) {
			g.CutoffRecorded = true
			g.RecordedCutoff = &gatewrightv1alpha1.RouteCutoff{CreationTimestamp: metav1.NewTime(base.Add(time.Minute)), Namespace: "a", Name: "mid", Message: "past the bound"}
		}, want: []string{"old"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := snap()
			tt.set(g)
			table, _ := g.RouteTable()
			if got := accepted(table); !slices.Equal(got, tt.want) {
				t.Errorf("accepted %v, want %v", got, tt.want)
			}
		})
	}
}
