package ctrlutil

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// recordingQueue records what is added after what delay.
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	added []time.Duration
}

func (q *recordingQueue) AddAfter(_ reconcile.Request, d time.Duration) { q.added = append(q.added, d) }

// An update whose old and new objects map to the same request asks for it once: with
// a Pace, a lone route edit renders its Gateway once, not at once and again after the
// interval.
func TestCoalescedAsksOncePerRequestOfAnEvent(t *testing.T) {
	gw := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "a", Name: "gw"}}
	pace := &Pace{Every: time.Hour}
	h := Coalesced(func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{gw} }, pace.Wait)
	q := &recordingQueue{}
	h.Update(context.Background(), event.UpdateEvent{ObjectOld: &gatewayv1.HTTPRoute{}, ObjectNew: &gatewayv1.HTTPRoute{}}, q)
	if len(q.added) != 1 || q.added[0] != 0 {
		t.Fatalf("an edit enqueued its Gateway after %v, want once, at once", q.added)
	}
}
