package ctrlutil

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/gatewright/gatewright/internal/conditions"
)

// StatusOption changes how WriteStatus writes.
type StatusOption func(*statusWrite)

type statusWrite struct {
	resourceVersion string
}

// OptimisticLock makes the write carry the object's resourceVersion, so that it is
// refused with a conflict when the object changed since it was read: for a status that
// other writers (other controllers, other shards) write parts of, none of theirs is lost.
func OptimisticLock(obj client.Object) StatusOption {
	return func(w *statusWrite) { w.resourceVersion = obj.GetResourceVersion() }
}

// WriteStatus is the one way a status is written: obj's status goes from original to
// current, as a merge patch of the status alone, only when they differ, or when obj as
// read may predate this process's own last write of it (writtenVersions): then it is
// written with an optimistic lock rather than compared with a copy the server no longer
// holds. When the API server refuses current for what it holds (conditions.Refused: a
// message too long, say), short(current) is written instead, so that an older verdict
// never stays because the news was too long to write. An object that is gone has no
// status to write.
func WriteStatus[S any](ctx context.Context, c client.Client, obj client.Object, original, current S, short func(S) S, opts ...StatusOption) error {
	unconfirmed := writes.unconfirmed(obj)
	if !unconfirmed && equality.Semantic.DeepEqual(original, current) {
		return nil
	}
	var w statusWrite
	for _, opt := range opts {
		opt(&w)
	}
	if unconfirmed {
		OptimisticLock(obj)(&w)
	}
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return err
	}
	target := answeredWithMetadata(gvk, obj)
	err = c.Status().Patch(ctx, target, statusPatch(original, current, w.resourceVersion))
	if conditions.Refused(err) {
		err = c.Status().Patch(ctx, target, statusPatch(original, short(current), w.resourceVersion))
	}
	switch {
	case err == nil:
		writes.record(obj, target.GetResourceVersion(), time.Now())
	case apierrors.IsNotFound(err):
		writes.record(obj, "", time.Now())
	}
	return client.IgnoreNotFound(err)
}
