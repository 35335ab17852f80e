package snapshot

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/scheme"
)

// A Gateway's memo of what its routes took gives the same attachment as attaching every
// route again, whatever changed between two passes: a route (by its generation), the
// labels of its namespace, the Gateway; and it forgets the routes that leave.
func TestAttachMemoAttachesAsIfEveryRouteWereAttachedAgain(t *testing.T) {
	ctx := context.Background()
	selected := func(gen int64) *gatewayv1.Gateway {
		gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "gw-uid", Generation: gen}, Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{
			{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{
				From: ptr.To(gatewayv1.NamespacesFromSelector), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"shared": "yes"}}}}},
		}}}
		if gen > 1 {
			gw.Spec.Listeners[0].AllowedRoutes.Namespaces.From = ptr.To(gatewayv1.NamespacesFromAll)
		}
		return gw
	}
	onWeb := func(namespace, name string, gen int64, section string) gatewayv1.HTTPRoute {
		return gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name), Generation: gen}, Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "web", Namespace: ptr.To(gatewayv1.Namespace("team-a")), SectionName: ptr.To(gatewayv1.SectionName(section))}}}}}
	}
	namespace := func(name string, shared bool) *corev1.Namespace {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if shared {
			ns.Labels = map[string]string{"shared": "yes"}
		}
		return ns
	}
	type state struct {
		gw     *gatewayv1.Gateway
		routes []gatewayv1.HTTPRoute
		shared map[string]bool // the namespaces labelled shared=yes
	}
	steps := []struct {
		name  string
		state state
		want  string
	}{
		{"first pass", state{selected(1), []gatewayv1.HTTPRoute{onWeb("team-a", "shop", 1, "http"), onWeb("team-b", "cart", 1, "http")}, map[string]bool{"team-a": true}},
			"map[HTTPRoute team-a/shop:[http]] map[http:1]"},
		{"a route edited to name no listener", state{selected(1), []gatewayv1.HTTPRoute{onWeb("team-a", "shop", 2, "none"), onWeb("team-b", "cart", 1, "http")}, map[string]bool{"team-a": true}},
			"map[] map[]"},
		{"its namespace labelled as the listener selects", state{selected(1), []gatewayv1.HTTPRoute{onWeb("team-a", "shop", 2, "none"), onWeb("team-b", "cart", 1, "http")}, map[string]bool{"team-a": true, "team-b": true}},
			"map[HTTPRoute team-b/cart:[http]] map[http:1]"},
		{"the label taken away", state{selected(1), []gatewayv1.HTTPRoute{onWeb("team-a", "shop", 3, "http"), onWeb("team-b", "cart", 1, "http")}, map[string]bool{"team-a": true}},
			"map[HTTPRoute team-a/shop:[http]] map[http:1]"},
		{"the Gateway edited to take routes from every namespace", state{selected(2), []gatewayv1.HTTPRoute{onWeb("team-a", "shop", 3, "http"), onWeb("team-b", "cart", 1, "http")}, map[string]bool{}},
			"map[HTTPRoute team-a/shop:[http] HTTPRoute team-b/cart:[http]] map[http:2]"},
		{"a route gone", state{selected(2), []gatewayv1.HTTPRoute{onWeb("team-b", "cart", 1, "http")}, map[string]bool{}},
			"map[HTTPRoute team-b/cart:[http]] map[http:1]"},
	}
	memo := NewAttachMemo()
	for _, step := range steps {
		objs := []client.Object{namespace("team-a", step.state.shared["team-a"]), namespace("team-b", step.state.shared["team-b"])}
		r := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
		serves := listeners.NewServes(nil, nil, nil)
		attachWith := func(memo *AttachMemo) string {
			t.Helper()
			g := &Gatherer{Reader: r, AttachMemos: memoOf(memo)}
			a, err := g.attached(ctx, step.state.gw, serves, routes.HTTPRoutes(&gatewayv1.HTTPRouteList{Items: step.state.routes}), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(listenersByKey(a), " ", a.counts)
		}
		fresh := attachWith(nil)
		if fresh != step.want {
			t.Fatalf("%s: attached afresh %s, want %s", step.name, fresh, step.want)
		}
		if got := attachWith(memo); got != fresh {
			t.Errorf("%s: attached with the memo %s, afresh %s", step.name, got, fresh)
		}
		if memo.routes.Len() != len(step.state.routes) {
			t.Errorf("%s: the memo holds %d routes, want the %d of the pass", step.name, memo.routes.Len(), len(step.state.routes))
		}
	}

	// What the memo holds is used: a spec changed without a new generation (which the API
	// server never does) is not looked at again.
	gw := selected(2)
	unchanged := routes.HTTPRoutes(&gatewayv1.HTTPRouteList{Items: []gatewayv1.HTTPRoute{onWeb("team-b", "cart", 1, "none")}})
	r := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(namespace("team-a", false), namespace("team-b", false)).Build()
	a, err := (&Gatherer{Reader: r, AttachMemos: memoOf(memo)}).attached(ctx, gw, listeners.NewServes(nil, nil, nil), unchanged, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(listenersByKey(a)); got != "map[HTTPRoute team-b/cart:[http]]" {
		t.Errorf("a route of the same generation was attached again: %s", got)
	}
}

// listenersByKey are the listeners each route of a attaches to, by its key.
func listenersByKey(a attachment) map[routes.Key][]gatewayv1.SectionName {
	out := map[routes.Key][]gatewayv1.SectionName{}
	for i, route := range a.routes {
		out[routes.KeyOf(route)] = a.routeListeners[i]
	}
	for i, route := range a.others {
		out[routes.KeyOf(route)] = a.otherListeners[i]
	}
	return out
}

// memoOf gives memo for every Gateway; none when it is nil.
func memoOf(memo *AttachMemo) func(*gatewayv1.Gateway) *AttachMemo {
	if memo == nil {
		return nil
	}
	return func(*gatewayv1.Gateway) *AttachMemo { return memo }
}

// The memo hands a pass its HTTPRoutes by namespace and name, as a pass without it sorts
// them, whatever order the routes come in; it finds an unchanged route by the object the
// cache hands out again, and by its UID when it is another copy of it; and it judges a
// route again when its namespace's labels change, even when the object is the same.
func TestAttachMemoKeepsTheOrderAndFindsTheSameObjects(t *testing.T) {
	ctx := context.Background()
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "gw-uid", Generation: 1}, Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{
		{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{
			From: ptr.To(gatewayv1.NamespacesFromSelector), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"shared": "yes"}}}}},
	}}}
	route := func(namespace, name string, gen int64, section string) *gatewayv1.HTTPRoute {
		return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + namespace + "-" + name), Generation: gen}, Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "web", Namespace: ptr.To(gatewayv1.Namespace("team-a")), SectionName: ptr.To(gatewayv1.SectionName(section))}}}}}
	}
	z, a, m, b := route("team-b", "z", 1, "http"), route("team-a", "a", 1, "http"), route("team-c", "m", 1, "http"), route("team-a", "b", 1, "http")
	mNone, c := route("team-c", "m", 2, "none"), route("team-a", "c", 1, "http")
	bHost := route("team-a", "b", 2, "http")
	bHost.Spec.Hostnames = []gatewayv1.Hostname{"b.example"}
	copies := func(routes ...*gatewayv1.HTTPRoute) []*gatewayv1.HTTPRoute {
		out := make([]*gatewayv1.HTTPRoute, len(routes))
		for i, r := range routes {
			out[i] = r.DeepCopy()
		}
		return out
	}
	every := map[string]bool{"team-a": true, "team-b": true, "team-c": true}
	steps := []struct {
		name       string
		candidates []*gatewayv1.HTTPRoute
		shared     map[string]bool
		want       string
	}{
		{"first pass", []*gatewayv1.HTTPRoute{z, a, m}, every, "[team-a/a:[http] team-b/z:[http] team-c/m:[http]]"},
		{"the same objects the other way round, and one more", []*gatewayv1.HTTPRoute{m, b, a, z}, every, "[team-a/a:[http] team-a/b:[http] team-b/z:[http] team-c/m:[http]]"},
		{"one edited to name no listener", []*gatewayv1.HTTPRoute{z, mNone, a, b}, every, "[team-a/a:[http] team-a/b:[http] team-b/z:[http]]"},
		{"copies of the same routes", copies(b, a, mNone, z), every, "[team-a/a:[http] team-a/b:[http] team-b/z:[http]]"},
		{"one gone, one came", []*gatewayv1.HTTPRoute{z, c, b, mNone}, every, "[team-a/b:[http] team-a/c:[http] team-b/z:[http]]"},
		{"a namespace's label taken away, the same objects", []*gatewayv1.HTTPRoute{z, c, b, mNone}, map[string]bool{"team-a": true}, "[team-a/b:[http] team-a/c:[http]]"},
		{"and given back", []*gatewayv1.HTTPRoute{c, mNone, b, z}, every, "[team-a/b:[http] team-a/c:[http] team-b/z:[http]]"},
		{"one edited to name a hostname", []*gatewayv1.HTTPRoute{c, mNone, bHost, z}, every, "[team-a/b:[http] team-a/c:[http] team-b/z:[http]]"},
	}
	memo := NewAttachMemo()
	for _, step := range steps {
		var objs []client.Object
		for _, name := range []string{"team-a", "team-b", "team-c"} {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
			if step.shared[name] {
				ns.Labels = map[string]string{"shared": "yes"}
			}
			objs = append(objs, ns)
		}
		r := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
		attachWith := func(memo *AttachMemo) string {
			t.Helper()
			g := &Gatherer{Reader: r, AttachMemos: memoOf(memo)}
			at, err := g.attached(ctx, gw, listeners.NewServes(nil, nil, nil), step.candidates, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for i, route := range at.routes {
				out = append(out, fmt.Sprintf("%s/%s:%v", route.Namespace, route.Name, at.routeListeners[i]))
				// What the route table reads of it is the route's as it is now.
				if memo != nil && !reflect.DeepEqual(at.routeFacts[i], routing.FactsOf(route)) {
					t.Errorf("%s: route %s's facts %+v, want %+v", step.name, route.Name, at.routeFacts[i], routing.FactsOf(route))
				}
			}
			return fmt.Sprint(out)
		}
		if fresh := attachWith(nil); fresh != step.want {
			t.Fatalf("%s: attached afresh %s, want %s", step.name, fresh, step.want)
		}
		if got := attachWith(memo); got != step.want {
			t.Errorf("%s: attached with the memo %s, want %s", step.name, got, step.want)
		}
		if len(memo.order) != memo.routes.Len() {
			t.Errorf("%s: the memo holds %d routes, %d in order", step.name, memo.routes.Len(), len(memo.order))
		}
	}
}

// A pass that fails after it ordered the HTTPRoutes forgets nothing: a route it did not
// see, seen again by the next pass, is in that pass's attachment.
func TestAttachMemoKeepsARouteAPassThatFailedDidNotSee(t *testing.T) {
	ctx := context.Background()
	all := gatewayv1.NamespacesFromAll
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "gw-uid", Generation: 1}, Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{
		{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &all}}},
	}}}
	parent := gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "web", Namespace: ptr.To(gatewayv1.Namespace("team-a"))}}}
	shop := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "shop", UID: "uid-shop", Generation: 1}, Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: parent}}
	// A GRPCRoute whose namespace cannot be read fails the pass after the HTTPRoutes.
	unreadable := &gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "broken", Name: "rpc", UID: "uid-rpc", Generation: 1}, Spec: gatewayv1.GRPCRouteSpec{CommonRouteSpec: parent}}
	failed := errors.New("the namespace cannot be read")
	r := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}).
		WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if key.Name == "broken" {
				return failed
			}
			return c.Get(ctx, key, obj, opts...)
		}}).Build()
	memo := NewAttachMemo()
	g := &Gatherer{Reader: r, AttachMemos: memoOf(memo)}
	serves := listeners.NewServes(nil, nil, nil)
	if a, err := g.attached(ctx, gw, serves, []*gatewayv1.HTTPRoute{shop}, nil, nil); err != nil || len(a.routes) != 1 {
		t.Fatalf("first pass: %d routes, %v", len(a.routes), err)
	}
	if _, err := g.attached(ctx, gw, serves, nil, []routes.Route{unreadable}, nil); !errors.Is(err, failed) {
		t.Fatalf("the pass without shop returned %v, want the failed read", err)
	}
	a, err := g.attached(ctx, gw, serves, []*gatewayv1.HTTPRoute{shop}, nil, nil)
	if err != nil || len(a.routes) != 1 || a.routes[0] != shop {
		t.Errorf("shop back after a failed pass: %d routes attached (%v), want shop", len(a.routes), err)
	}
}
