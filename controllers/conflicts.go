package controllers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// retryingConflicts runs a reconciler, and comes back shortly to a round that a write
// refused for a conflict, without reporting it as an error: a cache a few milliseconds
// behind the controller's own last write is routine, and an operator who reads
// "Reconciler error" for it would look for a fault that is not there.
func retryingConflicts(r reconcile.Reconciler) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		result, err := r.Reconcile(ctx, req)
		if apierrors.IsConflict(err) {
			log.FromContext(ctx).V(1).Info("a write met a newer version; retrying", "error", err.Error())
			return reconcile.Result{RequeueAfter: staleRecordRetry}, nil
		}
		return result, err
	})
}
