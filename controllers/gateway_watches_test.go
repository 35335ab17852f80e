package controllers

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/scheme"
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
