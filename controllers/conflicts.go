package controllers

import (
	"context"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// quietConflicts is how many conflicts in a row a request retries quietly. Past it a
// conflict is an error like any other: logged, and retried with the controller's growing
// backoff, since a cache that far behind, or a writer that keeps racing Gatewright, is
// not routine, and retrying every staleRecordRetry would be a write loop.
const quietConflicts = 5

// retryingConflicts runs a reconciler, and comes back shortly to a round that a write
// refused for a conflict (staleRecord: a newer version, or a Rendering the cache has not
// seen yet), without reporting it as an error: a cache a few milliseconds behind the
// controller's own last write is routine, and an operator who reads "Reconciler error"
// for it would look for a fault that is not there.
func retryingConflicts(r reconcile.Reconciler) reconcile.Reconciler {
	var mu sync.Mutex
	inARow := map[reconcile.Request]int{}
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		result, err := r.Reconcile(ctx, req)
		mu.Lock()
		defer mu.Unlock()
		if !staleRecord(err) {
			delete(inARow, req)
			return result, err
		}
		inARow[req]++
		if inARow[req] > quietConflicts {
			return result, err
		}
		log.FromContext(ctx).V(1).Info("a write found the cache behind; retrying", "error", err.Error())
		return reconcile.Result{RequeueAfter: staleRecordRetry}, nil
	})
}
