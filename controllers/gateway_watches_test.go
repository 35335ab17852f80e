package controllers

import (
	"context"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/scheme"
	"github.com/gatewright/gatewright/internal/values"
)

// countingQueue counts the requests a handler adds, and which.
type countingQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	added map[reconcile.Request]int
}

func newCountingQueue() *countingQueue {
	return &countingQueue{
		TypedRateLimitingInterface: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]()),
		added:                      map[reconcile.Request]int{},
	}
}

func (q *countingQueue) Add(req reconcile.Request) { q.added[req]++ }

// enqueued says how many requests were added, and for which objects.
func (q *countingQueue) enqueued() string {
	total, names := 0, map[string]bool{}
	for req, n := range q.added {
		total += n
		names[req.String()] = true
	}
	return fmt.Sprintf("%d for %d object(s)", total, len(names))
}

// grantWrites sends 50 updates of grant through h, as a tenant rewriting it would.
func grantWrites(h handler.EventHandler, grant *gatewayv1.ReferenceGrant) *countingQueue {
	q := newCountingQueue()
	for i := 0; i < 50; i++ {
		old, updated := grant.DeepCopy(), grant.DeepCopy()
		old.ResourceVersion, updated.ResourceVersion = fmt.Sprint(i), fmt.Sprint(i+1)
		h.Update(context.Background(), event.UpdateEvent{ObjectOld: old, ObjectNew: updated}, q)
	}
	return q
}

// grant is a ReferenceGrant in namespace that lets kinds of from refer to toKind (named
// toName, unless empty).
func grant(namespace, from, fromKind, toKind, toName string) *gatewayv1.ReferenceGrant {
	g := &gatewayv1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "grant"}}
	g.Spec.From = []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.GroupName, Kind: gatewayv1.Kind(fromKind), Namespace: gatewayv1.Namespace(from)}}
	g.Spec.To = []gatewayv1.ReferenceGrantTo{{Kind: gatewayv1.Kind(toKind)}}
	if toName != "" {
		name := gatewayv1.ObjectName(toName)
		g.Spec.To[0].Name = &name
	}
	return g
}

// tlsGateway is a Gateway whose one listener's certificateRef names certificate in
// certificateNamespace.
func tlsGateway(namespace, name, certificateNamespace, certificate string) *gatewayv1.Gateway {
	ns := gatewayv1.Namespace(certificateNamespace)
	return &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{{
			Name: "https", Protocol: gatewayv1.HTTPSProtocolType, Port: 443,
			TLS: &gatewayv1.ListenerTLSConfig{CertificateRefs: []gatewayv1.SecretObjectReference{{Name: gatewayv1.ObjectName(certificate), Namespace: &ns}}},
		}}},
	}
}

// TestGatewaysOfGrant: a ReferenceGrant reaches only the Gateways whose certificateRefs
// it can permit, however many other Gateways its from namespace holds.
func TestGatewaysOfGrant(t *testing.T) {
	objs := []client.Object{tlsGateway("victim", "referring", "team-a", "shared-cert")}
	for i := 0; i < 30; i++ {
		objs = append(objs, tlsGateway("victim", fmt.Sprintf("local-%d", i), "victim", "own-cert"))
		objs = append(objs, tlsGateway("quiet", fmt.Sprintf("local-%d", i), "quiet", "own-cert"))
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).
		WithIndex(&gatewayv1.Gateway{}, indexGatewayRefNamespace, gatewayRefNamespaces).Build()
	r := &GatewayReconciler{programmer: programmer{Client: c}}
	for _, tc := range []struct {
		name  string
		grant *gatewayv1.ReferenceGrant
		want  string
	}{
		{"50 writes to a grant naming a namespace where no Gateway refers to the grant's enqueue nothing", grant("team-a", "quiet", "Gateway", "Secret", ""), "0 for 0 object(s)"},
		{"50 writes to a grant enqueue only the Gateway that refers through it, once a write", grant("team-a", "victim", "Gateway", "Secret", ""), "50 for 1 object(s)"},
		{"a grant of the Secret the Gateway names reaches it", grant("team-a", "victim", "Gateway", "Secret", "shared-cert"), "50 for 1 object(s)"},
		{"a grant of another Secret reaches no Gateway", grant("team-a", "victim", "Gateway", "Secret", "other-cert"), "0 for 0 object(s)"},
		{"a grant to Services reaches no Gateway", grant("team-a", "victim", "Gateway", "Service", ""), "0 for 0 object(s)"},
		{"a grant to routes reaches no Gateway", grant("team-a", "victim", "HTTPRoute", "Secret", ""), "0 for 0 object(s)"},
		{"a grant in another namespace than the one referred to reaches no Gateway", grant("team-b", "victim", "Gateway", "Secret", ""), "0 for 0 object(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := grantWrites(ctrlutil.MapTo(r.gatewaysOfGrant), tc.grant).enqueued(); got != tc.want {
				t.Errorf("enqueued %s, want %s", got, tc.want)
			}
		})
	}
}

func TestANewCurrentRevisionReachesOnlyTheGatewaysThatRunIt(t *testing.T) {
	ctx := context.Background()
	class := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "envoy"}, Spec: gatewayv1.GatewayClassSpec{
		ControllerName: gatewrightv1alpha1.ControllerName,
		ParametersRef:  &gatewayv1.ParametersReference{Group: gatewayv1.Group(gatewrightv1alpha1.GroupVersion.Group), Kind: gatewrightv1alpha1.KindGatewayClassBlueprint, Name: "bp"},
	}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(class).
		WithIndex(&gatewayv1.Gateway{}, indexGatewayClassName, gatewayClassName).
		WithIndex(&gatewrightv1alpha1.Rendering{}, indexRenderingBlueprint, renderingBlueprint).Build()
	applier := apply.New(c, c)
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}}
	targets := map[string]int64{"assigned-newer": 3, "assigned-older": 1, "unassigned": 0}
	for _, name := range []string{"assigned-newer", "assigned-older", "unassigned", "unrendered"} {
		gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "envoy"}}
		if err := c.Create(ctx, gw); err != nil {
			t.Fatal(err)
		}
		if name == "unrendered" {
			continue
		}
		rec, err := applier.LoadRecord(ctx, apply.GatewayOwner(gw))
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Rendered(&values.Result{Values: map[string]any{}}, "envoy", bp, 1); err != nil {
			t.Fatal(err)
		}
		if err := applier.SaveRecord(ctx, rec, apply.Inventory{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-a", Name: name, Template: "config"}}); err != nil {
			t.Fatal(err)
		}
		if targets[name] > 0 {
			part := &gatewrightv1alpha1.Rendering{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: rec.ValuesRendering()}, part); err != nil {
				t.Fatal(err)
			}
			if err := apply.AssignRevision(ctx, c, part, bp.Name, targets[name], true); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := &GatewayReconciler{programmer: programmer{Client: c}}
	bp.Status.CurrentRevision = 2

	var got []string
	for _, req := range r.gatewaysOnCurrentRevision(ctx, bp) {
		got = append(got, req.Name)
	}
	slices.Sort(got)
	if want := []string{"assigned-older", "unassigned", "unrendered"}; !slices.Equal(got, want) {
		t.Errorf("currentRevision 2 reaches %v, want %v: a Gateway assigned a newer revision runs that one", got, want)
	}
	if n := len(r.gatewaysOfBlueprint(ctx, bp)); n != 4 {
		t.Errorf("the blueprint's coming or going reaches %d Gateways, want all 4", n)
	}
}

// A backend Service that comes, or a ReferenceGrant that permits it, reaches the Gateway
// of a route of any kind that names it: a GRPCRoute's backends are in the route table as
// much as an HTTPRoute's.
func TestBackendsOfEveryRouteKindReachTheirGateway(t *testing.T) {
	ctx := context.Background()
	backend := gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
		Name: "echo", Namespace: ptr.To(gatewayv1.Namespace("backends")), Port: ptr.To(gatewayv1.PortNumber(8080))}}
	parent := gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "web", Namespace: ptr.To(gatewayv1.Namespace("team-a"))}}}
	grpc := &gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "calls"}, Spec: gatewayv1.GRPCRouteSpec{
		CommonRouteSpec: parent, Rules: []gatewayv1.GRPCRouteRule{{BackendRefs: []gatewayv1.GRPCBackendRef{{BackendRef: backend}}}}}}
	builder := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(grpc)
	for _, kind := range []string{routes.KindHTTPRoute, routes.KindGRPCRoute} {
		builder = builder.WithIndex(routes.New(kind), indexRouteService, routeServices).
			WithIndex(routes.New(kind), indexRouteBackendNamespace, routeBackendNamespaces)
	}
	r := &GatewayReconciler{programmer: programmer{Client: builder.Build()}, routeKinds: []string{routes.KindHTTPRoute, routes.KindGRPCRoute}}

	echo := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "backends", Name: "echo"}}
	if got := fmt.Sprint(r.gatewaysOfService(ctx, echo)); got != "[team-a/web]" {
		t.Errorf("the GRPCRoute's backend Service reaches %s, want its Gateway team-a/web", got)
	}
	if got := fmt.Sprint(r.gatewaysOfRoutesOfGrant(ctx, grant("backends", "team-b", routes.KindGRPCRoute, "Service", ""))); got != "[team-a/web]" {
		t.Errorf("a grant of the GRPCRoute's backend reaches %s, want its Gateway team-a/web", got)
	}
	if got := fmt.Sprint(r.gatewaysOfRoutesOfGrant(ctx, grant("backends", "team-b", routes.KindHTTPRoute, "Service", ""))); got != "[]" {
		t.Errorf("a grant to HTTPRoutes reaches %s through a GRPCRoute, want nothing", got)
	}
}
