package ctrlutil

import (
	"context"
	"errors"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// StaleCacheRetry is how soon a round that found the cache behind comes back: the
// cache is usually a few milliseconds behind a write.
const StaleCacheRetry = 100 * time.Millisecond

// QuietConflicts is how many conflicts in a row a request retries quietly. Past it a
// conflict is an error like any other: logged, and retried with the controller's growing
// backoff, since a cache that far behind, or a writer that keeps racing the controller,
// is not routine, and retrying every StaleCacheRetry would be a write loop.
const QuietConflicts = 5

// RetryingConflicts runs a reconciler, and comes back after StaleCacheRetry to a round
// that a write refused for a conflict (stale says which errors are: a newer version, or
// an object the cache has not seen yet), without reporting it as an error: a cache a few
// milliseconds behind the controller's own last write is routine, and an operator who
// reads "Reconciler error" for it would look for a fault that is not there. Nor is a
// round the controller's own stop cut short an error (a write in flight when the
// process is told to end): nothing is wrong with the object, and the next process
// reconciles it again.
func RetryingConflicts(r reconcile.Reconciler, stale func(error) bool) reconcile.Reconciler {
	var mu sync.Mutex
	inARow := map[reconcile.Request]int{}
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		result, err := r.Reconcile(ctx, req)
		if errors.Is(err, context.Canceled) && errors.Is(ctx.Err(), context.Canceled) {
			return reconcile.Result{}, nil
		}
		mu.Lock()
		defer mu.Unlock()
		if err == nil || !stale(err) {
			delete(inARow, req)
			return result, err
		}
		inARow[req]++
		if inARow[req] > QuietConflicts {
			return result, err
		}
		log.FromContext(ctx).V(1).Info("a write found the cache behind; retrying", "error", err.Error())
		return reconcile.Result{RequeueAfter: StaleCacheRetry}, nil
	})
}
