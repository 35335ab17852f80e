package ctrlutil

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

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
		{name: "a conflict comes back shortly, not as an error", err: conflict, wantResult: reconcile.Result{RequeueAfter: StaleCacheRetry}},
		{name: "so does a wrapped one", err: fmt.Errorf("finalizer: %w", conflict), wantResult: reconcile.Result{RequeueAfter: StaleCacheRetry}},
		{name: "any other error is reported", err: failure, wantErr: failure},
		{name: "a round that asked to come back keeps its time", wantResult: reconcile.Result{RequeueAfter: time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				if tc.err != nil {
					return reconcile.Result{}, tc.err
				}
				return tc.wantResult, nil
			})
			result, err := RetryingConflicts(inner, apierrors.IsConflict).Reconcile(t.Context(), reconcile.Request{})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("error = %v, want %v", err, tc.wantErr)
			}
			if result != tc.wantResult {
				t.Errorf("result = %+v, want %+v", result, tc.wantResult)
			}
		})
	}
}

// A conflict that keeps coming back is reported after QuietConflicts quiet retries, so
// that the controller's backoff grows instead of a write every StaleCacheRetry; any
// other outcome starts the count again.
func TestRetryingConflictsReportsAConflictThatStays(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "gatewright.dev", Resource: "renderings"}, "gateway.web", errors.New("the object has been modified"))
	var next error
	r := RetryingConflicts(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		return reconcile.Result{}, next
	}), apierrors.IsConflict)
	web := reconcile.Request{}
	web.Namespace, web.Name = "team", "web"
	shop := reconcile.Request{}
	shop.Namespace, shop.Name = "team", "shop"
	outcome := func(req reconcile.Request) error {
		result, err := r.Reconcile(t.Context(), req)
		if next != nil && err == nil && result.RequeueAfter != StaleCacheRetry {
			t.Fatalf("a quiet retry came back after %v", result.RequeueAfter)
		}
		return err
	}
	next = conflict
	for i := range QuietConflicts {
		if err := outcome(web); err != nil {
			t.Fatalf("conflict %d reported: %v", i+1, err)
		}
	}
	if err := outcome(shop); err != nil {
		t.Fatalf("another request's first conflict reported: %v", err)
	}
	for range 2 {
		if err := outcome(web); !apierrors.IsConflict(err) {
			t.Fatalf("conflict past %d in a row: %v, want it reported", QuietConflicts, err)
		}
	}
	next = nil
	if err := outcome(web); err != nil {
		t.Fatal(err)
	}
	next = conflict
	if err := outcome(web); err != nil {
		t.Fatalf("the first conflict after a success reported: %v", err)
	}
}

// A round the controller's stop cuts short is not reported; a cancellation while the
// controller runs (a call of its own that gave up) still is.
func TestRetryingConflictsLetsAStopCutARoundShortQuietly(t *testing.T) {
	cancelled := fmt.Errorf("patch status: %w", context.Canceled)
	r := RetryingConflicts(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		return reconcile.Result{}, cancelled
	}), apierrors.IsConflict)
	if _, err := r.Reconcile(t.Context(), reconcile.Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancellation while running = %v, want it reported", err)
	}
	stopping, stop := context.WithCancel(t.Context())
	stop()
	if _, err := r.Reconcile(stopping, reconcile.Request{}); err != nil {
		t.Errorf("a round cut short by the stop = %v, want no error", err)
	}
}
