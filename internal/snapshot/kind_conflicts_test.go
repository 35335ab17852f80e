package snapshot

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/scheme"
)

// A route's own reconcile finds the conflict the Gateway's table finds: the fixture's
// HTTPRoutes on Gateway team-a/web (no hostnames, the oldest) against a newer GRPCRoute.
func TestKindConflictIsWhatTheGatewaysTableRefuses(t *testing.T) {
	rpc := &gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "rpc", CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}}
	rpc.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "web", Namespace: ptr.To(gatewayv1.Namespace("team-a"))}}
	reader := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(append(cluster(), rpc)...).Build()
	g := &Gatherer{Reader: reader, ControllerNamespace: system}
	gw := gateway("web")
	both := listeners.NewServes(nil, nil, []gatewayv1.Kind{routes.KindHTTPRoute, routes.KindGRPCRoute})
	shop := route("team-a", "shop", "web", "shop")
	// Every HTTPRoute of the fixture from the first on, as old as it, left out for a bound.
	allCut := &gatewrightv1alpha1.RouteCutoff{Kind: routes.KindHTTPRoute, Namespace: "team-a", Name: "shop", Message: "past the bound"}

	tests := []struct {
		name   string
		route  routes.Route
		serves listeners.Serves
		cutoff *gatewrightv1alpha1.RouteCutoff
		want   string // a part of the refusal's message; empty for none
	}{
		{"the newer GRPCRoute loses to the oldest HTTPRoute", rpc, both, nil, "an older HTTPRoute of another namespace serves hostname * on listener http too"},
		{"the oldest HTTPRoute wins", shop, both, nil, ""},
		{"HTTPRoutes left out for a bound knock no GRPCRoute out", rpc, both, allCut, ""},
		{"a class serving no GRPCRoute has no conflict", rpc, listeners.Serves{}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refusal, err := g.KindConflict(t.Context(), gw, tt.serves, tt.route, nil, nil, tt.cutoff)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && refusal != nil:
				t.Errorf("refused %+v, want accepted", refusal)
			case tt.want != "" && (refusal == nil || refusal.Reason != routing.ReasonHostnameConflict || !strings.Contains(refusal.Message, tt.want)):
				t.Errorf("refusal %+v, want %s saying %q", refusal, routing.ReasonHostnameConflict, tt.want)
			}
		})
	}
}
