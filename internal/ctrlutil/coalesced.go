package ctrlutil

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Coalesced enqueues what fn maps an event to after wait(request): the queue holds a
// request that is waiting only once, so a burst of events (a fleet's Renderings written
// one after another) makes one reconcile at the end of the wait, not one per event.
func Coalesced(fn handler.MapFunc, wait func(reconcile.Request) time.Duration) handler.EventHandler {
	// Each request an event maps to waits once, however many of its objects (an update's
	// old and new) map to it: wait may count the asking (Pace does).
	add := func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], objs ...client.Object) {
		seen := map[reconcile.Request]bool{}
		for _, obj := range objs {
			for _, req := range fn(ctx, obj) {
				if !seen[req] {
					seen[req] = true
					q.AddAfter(req, wait(req))
				}
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(ctx, q, e.Object)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(ctx, q, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(ctx, q, e.Object)
		},
	}
}
