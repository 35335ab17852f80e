package snapshot

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/scheme"
)

// A Gateway's memo of how its routes' backendRefs resolved gives what resolving them
// afresh gives, whatever changed between two passes: a Service came or went, a route
// was edited, a ReferenceGrant let a route use another namespace's Service; and it
// forgets the routes that leave.
func TestBackendMemoResolvesAsIfEveryRouteWereResolvedAgain(t *testing.T) {
	ctx := context.Background()
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "gw-uid", Generation: 1}, Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{
		{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromAll)}}},
	}}}
	route := func(namespace, name string, gen int64, service string) gatewayv1.HTTPRoute {
		ref := gatewayv1.HTTPBackendRef{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(service), Port: ptr.To(gatewayv1.PortNumber(80))}}}
		if namespace != "team-a" {
			ref.Namespace = ptr.To(gatewayv1.Namespace("team-a"))
		}
		return gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name), Generation: gen}, Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "web", Namespace: ptr.To(gatewayv1.Namespace("team-a"))}}},
			Rules:           []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{ref}}}}}
	}
	service := func(name string) client.Object {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name}}
	}
	grant := &gatewayv1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "cart"}, Spec: gatewayv1.ReferenceGrantSpec{
		From: []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Namespace: "team-b"}},
		To:   []gatewayv1.ReferenceGrantTo{{Kind: "Service"}}}}
	steps := []struct {
		name   string
		routes []gatewayv1.HTTPRoute
		objs   []client.Object
		want   string
	}{
		{"first pass", []gatewayv1.HTTPRoute{route("team-a", "shop", 1, "shop"), route("team-b", "cart", 1, "cart")}, []client.Object{service("shop"), service("cart")},
			"team-a/shop ResolvedRefs; team-b/cart RefNotPermitted"},
		{"the Service of shop gone", []gatewayv1.HTTPRoute{route("team-a", "shop", 1, "shop"), route("team-b", "cart", 1, "cart")}, []client.Object{service("cart")},
			"team-a/shop BackendNotFound; team-b/cart RefNotPermitted"},
		{"back, and cart granted", []gatewayv1.HTTPRoute{route("team-a", "shop", 1, "shop"), route("team-b", "cart", 1, "cart")}, []client.Object{service("shop"), service("cart"), grant},
			"team-a/shop ResolvedRefs; team-b/cart ResolvedRefs"},
		{"shop edited to name another Service", []gatewayv1.HTTPRoute{route("team-a", "shop", 2, "other"), route("team-b", "cart", 1, "cart")}, []client.Object{service("shop"), service("cart"), grant},
			"team-a/shop BackendNotFound; team-b/cart ResolvedRefs"},
		{"that Service made", []gatewayv1.HTTPRoute{route("team-a", "shop", 2, "other"), route("team-b", "cart", 1, "cart")}, []client.Object{service("other"), service("cart"), grant},
			"team-a/shop ResolvedRefs; team-b/cart ResolvedRefs"},
		{"cart gone", []gatewayv1.HTTPRoute{route("team-a", "shop", 2, "other")}, []client.Object{service("other")},
			"team-a/shop ResolvedRefs"},
	}
	memo := NewBackendMemo()
	for _, step := range steps {
		objs := append([]client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-b"}}}, step.objs...)
		r := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
		resolveWith := func(memo *BackendMemo) string {
			t.Helper()
			g := &Gatherer{Reader: r}
			if memo != nil {
				g.BackendMemos = func(*gatewayv1.Gateway) *BackendMemo { return memo }
			}
			candidates := make([]*gatewayv1.HTTPRoute, len(step.routes))
			for i := range step.routes {
				candidates[i] = step.routes[i].DeepCopy()
			}
			snap, err := g.attachedWithBackends(ctx, gw, nil, listeners.NewServes(nil, nil, nil), candidates, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, in := range snap.RouteInputs {
				out = append(out, fmt.Sprintf("%s/%s %s", in.Route.GetNamespace(), in.Route.GetName(), in.BackendRefs[0].Reason))
			}
			return strings.Join(out, "; ")
		}
		fresh := resolveWith(nil)
		if fresh != step.want {
			t.Fatalf("%s: resolved afresh %s, want %s", step.name, fresh, step.want)
		}
		if got := resolveWith(memo); got != fresh {
			t.Errorf("%s: resolved with the memo %s, afresh %s", step.name, got, fresh)
		}
	}
	if memo.routes.Len() != 1 {
		t.Errorf("the memo holds %d routes after a pass of one", memo.routes.Len())
	}
}
