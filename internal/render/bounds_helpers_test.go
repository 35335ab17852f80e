package render_test

import (
	"fmt"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
)

// routeTable is testdata/route-table.blueprint.yaml: linear work per route match.
func routeTable(t testing.TB) *gatewrightv1alpha1.GatewayClassBlueprint {
	t.Helper()
	spec, err := os.ReadFile("testdata/route-table.blueprint.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return blueprint(t, string(spec))
}

// routesInput is the test Gateway with n routes attached, of matches matches each in
// one rule: a path prefix and a header, and a backend.
func routesInput(n, matches int) render.Input {
	in := testInput(nil)
	port := gatewayv1.PortNumber(8080)
	for i := range n {
		rule := gatewayv1.HTTPRouteRule{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
			BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(fmt.Sprintf("svc-%d", i)), Port: &port},
		}}}}
		for j := range matches {
			prefix := gatewayv1.PathMatchPathPrefix
			rule.Matches = append(rule.Matches, gatewayv1.HTTPRouteMatch{
				Path:    &gatewayv1.HTTPPathMatch{Type: &prefix, Value: new(fmt.Sprintf("/app-%d/v%d", i, j))},
				Headers: []gatewayv1.HTTPHeaderMatch{{Name: "x-tenant", Value: fmt.Sprintf("tenant-%d", i%50)}},
			})
		}
		in.HTTPRoutes = append(in.HTTPRoutes, &gatewayv1.HTTPRoute{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("route-%d", i), Namespace: fmt.Sprintf("team-%d", i%100)},
			Spec: gatewayv1.HTTPRouteSpec{
				CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "web", Namespace: new(gatewayv1.Namespace("team-a"))}}},
				Hostnames:       []gatewayv1.Hostname{gatewayv1.Hostname(fmt.Sprintf("app-%d.example.com", i))},
				Rules:           []gatewayv1.HTTPRouteRule{rule},
			},
		})
	}
	return in
}
