package controllers

import (
	"context"
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestRetryingConflicts(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "gateway.networking.k8s.io", Resource: "gatewayclasses"}, "certs", errors.New("the object has been modified"))
	failure := errors.New("no matches for kind \"Certificate\"")
	for _, tc := range []struct {
		name       string
		err        error
		wantErr    error
		wantResult reconcile.Result
	}{
		{name: "a conflict comes back shortly, not as an error", err: conflict, wantResult: reconcile.Result{RequeueAfter: staleRecordRetry}},
		{name: "so does a wrapped one", err: fmt.Errorf("finalizer: %w", conflict), wantResult: reconcile.Result{RequeueAfter: staleRecordRetry}},
		{name: "any other error is reported", err: failure, wantErr: failure},
		{name: "a round that asked to come back keeps its time", wantResult: reconcile.Result{RequeueAfter: slotRetry}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				if tc.err != nil {
					return reconcile.Result{}, tc.err
				}
				return tc.wantResult, nil
			})
			result, err := retryingConflicts(inner).Reconcile(t.Context(), reconcile.Request{})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("error = %v, want %v", err, tc.wantErr)
			}
			if result != tc.wantResult {
				t.Errorf("result = %+v, want %+v", result, tc.wantResult)
			}
		})
	}
}
