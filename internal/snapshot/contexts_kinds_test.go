package snapshot

import (
	"slices"
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/scheme"
)

// A policy reaches the routes of every kind its Gatherer lists, as the values of each
// are computed: a GRPCRoute on the class's Gateway, from the class, the namespace and
// the route.
func TestAPolicyReachesRoutesOfEveryKind(t *testing.T) {
	objects := cluster()
	serves := &gatewrightv1alpha1.Serves{RouteKinds: []gatewayv1.Kind{"HTTPRoute", "GRPCRoute"}}
	for _, obj := range objects {
		switch o := obj.(type) {
		case *gatewrightv1alpha1.GatewayClassBlueprintRevision:
			o.Spec.Serves = serves
		case *gatewrightv1alpha1.GatewayClassBlueprint:
			o.Spec.Serves = serves
		}
	}
	rpc := &gatewayv1.GRPCRoute{}
	rpc.Namespace, rpc.Name = "team-b", "rpc"
	rpc.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "web", Namespace: ptr.To(gatewayv1.Namespace("team-a"))}}
	reader := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(append(objects, rpc)...).Build()

	tests := []struct {
		name      string
		namespace string
		target    gatewayv1.LocalPolicyTargetReference
		kinds     []string
		want      []string
	}{
		{"a class policy reaches the GRPCRoute on the class's Gateway", system, classTarget("internet")[0], routes.OtherKinds,
			[]string{"Gateway team-a/assigned", "Gateway team-a/web", "HTTPRoute team-a/shop on Gateway team-a/web", "HTTPRoute team-b/cart on Gateway team-a/web", "GRPCRoute team-b/rpc on Gateway team-a/web"}},
		{"a namespace policy of the route's namespace reaches it on the Gateway elsewhere", "team-b", namespaceTarget("team-b")[0], routes.OtherKinds,
			[]string{"HTTPRoute team-b/cart on Gateway team-a/web", "GRPCRoute team-b/rpc on Gateway team-a/web"}},
		{"a policy on the GRPCRoute reaches it on its Gateway", "team-b", gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "GRPCRoute", Name: "rpc"}, routes.OtherKinds,
			[]string{"GRPCRoute team-b/rpc on Gateway team-a/web"}},
		{"a Gatherer that lists HTTPRoutes only reaches none of the GRPCRoutes", "team-b", namespaceTarget("team-b")[0], nil,
			[]string{"HTTPRoute team-b/cart on Gateway team-a/web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &Gatherer{Reader: reader, ControllerNamespace: system, SecretCheck: secretsOK, OtherRouteKinds: tt.kinds}
			reached, err := g.Policy(t.Context(), tt.namespace, tt.target, &render.Cache{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range reached {
				got = append(got, c.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
