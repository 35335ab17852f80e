package snapshot

import (
	"fmt"
	"slices"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/scheme"
)

// servingReader reads the fixed cluster where revision 2 of envoy serves GRPCRoutes only,
// its live spec HTTPS only, and a route of team-a names Gateway team-a/assigned, which
// runs revision 2.
func servingReader(t *testing.T) client.Reader {
	t.Helper()
	objects := cluster()
	for _, obj := range objects {
		switch o := obj.(type) {
		case *gatewrightv1alpha1.GatewayClassBlueprintRevision:
			if o.Revision == 2 {
				o.Spec.Serves = &gatewrightv1alpha1.Serves{RouteKinds: []gatewayv1.Kind{"GRPCRoute"}}
			}
		case *gatewrightv1alpha1.GatewayClassBlueprint:
			o.Spec.Serves = &gatewrightv1alpha1.Serves{Protocols: []gatewayv1.ProtocolType{"HTTPS"}}
		}
	}
	objects = append(objects, route("team-a", "on-assigned", "assigned", "shop"))
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objects...).Build()
}

// listenersOf summarizes the listeners a snapshot judged: name accepted [kinds].
func listenersOf(t *testing.T, g *Gatherer, gw string, opts ...Option) (summary []string, routes int) {
	t.Helper()
	snap, err := g.Gateway(t.Context(), gateway(gw), internet(t, g.Reader), opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range snap.Listeners {
		var kinds []gatewayv1.Kind
		for _, k := range l.SupportedKinds {
			kinds = append(kinds, k.Kind)
		}
		summary = append(summary, fmt.Sprintf("%s %s %v", l.Name, l.Accepted, kinds))
	}
	return summary, len(snap.Routes)
}

func TestListenersAndRoutesFollowWhatTheRevisionRunServes(t *testing.T) {
	two := Assigned(func(string) int64 { return 2 })
	cases := []struct {
		name     string
		gatherer Gatherer
		opts     []Option
		want     []string
		routes   int
	}{
		{"the current revision serves what a blueprint without serves does", Gatherer{}, nil,
			[]string{"http Accepted [HTTPRoute]", "https Accepted [HTTPRoute]"}, 2},
		{"a Gateway a rollout assigned revision 2 supports GRPCRoute only, and no HTTPRoute attaches", Gatherer{}, []Option{two},
			[]string{"http Accepted [GRPCRoute]", "https Accepted [GRPCRoute]"}, 0},
		{"its route table alone is judged the same way", Gatherer{AsRecorded: true}, []Option{two, RouteTableOnly()},
			[]string{"http Accepted [GRPCRoute]", "https Accepted [GRPCRoute]"}, 0},
		{"a proposed spec is served as it says: on HTTPS only, which takes the routes of its namespace", Gatherer{Proposed: map[string]bool{"envoy": true}}, nil,
			[]string{"http UnsupportedProtocol []", "https Accepted [HTTPRoute]"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := c.gatherer
			g.Reader, g.ControllerNamespace, g.SecretCheck = servingReader(t), system, secretsOK
			got, routes := listenersOf(t, &g, "web", c.opts...)
			if !slices.Equal(got, c.want) || routes != c.routes {
				t.Errorf("got %q with %d routes, want %q with %d", got, routes, c.want, c.routes)
			}
		})
	}
}

func TestServesIsTheRevisionTheGatewayRuns(t *testing.T) {
	r := servingReader(t)
	g := &Gatherer{Reader: r}
	for _, c := range []struct {
		name, gateway string
		grpc          bool
	}{
		{"the current revision serves no GRPCRoute", "web", false},
		{"revision 2, which the Gateway's record says a rollout assigned it, does", "assigned", true},
	} {
		serves, err := g.Serves(t.Context(), gateway(c.gateway), internet(t, r))
		if err != nil {
			t.Fatal(err)
		}
		if got := serves.RouteKind("GRPCRoute"); got != c.grpc {
			t.Errorf("%s: GRPCRoute served %v, want %v", c.name, got, c.grpc)
		}
	}
}

func TestAPolicyReachesOnlyTheRoutesAttachedByWhatTheirGatewaysServe(t *testing.T) {
	g := &Gatherer{Reader: servingReader(t), ControllerNamespace: system}
	reached, err := g.Policy(t.Context(), system, classTarget("internet")[0], &render.Cache{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range reached {
		got = append(got, c.String())
	}
	// team-a/on-assigned names Gateway assigned, whose revision serves no HTTPRoute.
	want := []string{"Gateway team-a/assigned", "Gateway team-a/web", "HTTPRoute team-a/shop on Gateway team-a/web", "HTTPRoute team-b/cart on Gateway team-a/web"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
