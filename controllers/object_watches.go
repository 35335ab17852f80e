package controllers

import (
	"context"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/gatewright/gatewright/internal/apply"
)

// objectWatches starts a watch for each kind of object Gatewright renders, the first
// time it renders one (or is refused one), so that drift and readiness changes trigger a
// reconcile, and a deletion brings back the owners that wait for the name (contested).
type objectWatches struct {
	controller controller.Controller
	cache      cache.Cache
	mapper     handler.MapFunc
	applier    *apply.Applier
	contested  *contestedNames
	mu         sync.Mutex
	watched    map[schema.GroupVersionKind]bool
}

func newObjectWatches(c controller.Controller, cache cache.Cache, mapper handler.MapFunc, applier *apply.Applier, contested *contestedNames) *objectWatches {
	return &objectWatches{controller: c, cache: cache, mapper: mapper, applier: applier, contested: contested, watched: map[schema.GroupVersionKind]bool{}}
}

func (w *objectWatches) ensure(_ context.Context, objs []*unstructured.Unstructured) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		if w.watched[gvk] {
			continue
		}
		if err := w.controller.Watch(source.Kind[client.Object](w.cache, apply.CachedObject(gvk), w.othersChanges(gvk.GroupKind()))); err != nil {
			return err
		}
		w.watched[gvk] = true
	}
	return nil
}

// othersChanges enqueues the owners of rendered objects of kind gk on the events that
// say something their last round did not know: not resyncs (updates that carry no new
// resourceVersion), and not the events Gatewright's own applies cause
// (Applier.OwnWrite), which it holds back until it knows whose they are.
func (w *objectWatches) othersChanges(gk schema.GroupKind) handler.EventHandler {
	type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
	add := func(requests []reconcile.Request, q queue) {
		for _, req := range requests {
			q.Add(req)
		}
	}
	// The Gateway and the HTTPRoute reconcilers both watch each kind they render; only
	// the one whose object it is asks, since asking answers once.
	unlessOwn := func(requests []reconcile.Request, obj client.Object, q queue) {
		if len(requests) > 0 && !w.applier.OwnWrite(gk, obj, func() { add(requests, q) }) {
			add(requests, q)
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q queue) {
			unlessOwn(w.mapper(ctx, e.Object), e.Object, q)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q queue) {
			if e.ObjectOld.GetResourceVersion() == e.ObjectNew.GetResourceVersion() {
				return
			}
			requests := w.mapper(ctx, e.ObjectNew)
			// An owner the labels no longer name learns that the object left it.
			for _, req := range w.mapper(ctx, e.ObjectOld) {
				if !slices.Contains(requests, req) {
					q.Add(req)
				}
			}
			unlessOwn(requests, e.ObjectNew, q)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q queue) {
			add(w.mapper(ctx, e.Object), q)
			add(w.contested.release(objectName{group: gk.Group, kind: gk.Kind, namespace: e.Object.GetNamespace(), name: e.Object.GetName()}), q)
		},
	}
}
