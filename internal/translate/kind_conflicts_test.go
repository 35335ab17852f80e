package translate

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
)

// The newer of an HTTPRoute and a GRPCRoute sharing a hostname is out of the table and
// of the templates' routes alike, so that what says Accepted=False is not served.
func TestTheLoserOfAKindConflictIsInNeitherTheTableNorTheTemplatesRoutes(t *testing.T) {
	listener := gatewayv1.Listener{Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80}
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "web"}, Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{listener}}}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	web := gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web", CreationTimestamp: metav1.NewTime(base)},
		Spec: gatewayv1.HTTPRouteSpec{Hostnames: []gatewayv1.Hostname{"api.example"}}}
	rpc := &gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "rpc", CreationTimestamp: metav1.NewTime(base.Add(time.Minute))},
		Spec: gatewayv1.GRPCRouteSpec{Hostnames: []gatewayv1.Hostname{"api.example"}}}
	g := &Gateway{Gateway: gw, Listeners: listeners.Evaluate(listeners.Serves{}, gw.Spec.Listeners, nil),
		Routes: []*gatewayv1.HTTPRoute{&web}, OtherRoutes: []routes.Route{rpc},
		RouteInputs: []routing.RouteInput{{Route: &web, Listeners: []gatewayv1.SectionName{"http"}}, {Route: rpc, Listeners: []gatewayv1.SectionName{"http"}}}}

	table, _ := g.RouteTable()
	for _, v := range table.Routes {
		if want := v.Kind == routes.KindHTTPRoute; v.Accepted != want || (!want && v.Reason != routing.ReasonHostnameConflict) {
			t.Errorf("%s %s: accepted %v (%s), want %v", v.Kind, v.Name, v.Accepted, v.Reason, want)
		}
	}
	refused := refusedIn(table)
	if got := g.acceptedRoutes(refused); len(got) != 1 {
		t.Errorf(".HTTPRoutes %d, want the older HTTPRoute", len(got))
	}
	if got := g.acceptedOthers(refused); len(got) != 0 {
		t.Errorf(".GRPCRoutes %d, want the newer GRPCRoute left out", len(got))
	}
}
