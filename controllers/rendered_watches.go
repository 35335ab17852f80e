package controllers

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

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

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
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

// A Gateway or route refused because an object of a name it renders is another owner's
// (apply.ConflictError) has nothing of its own that changes when that object goes: the
// object's events map to the other owner. contestedNames remembers, in memory, which
// owners wait for which name, so that the object's deletion, or a Rendering that stops
// listing it, brings them back. A slow requeue covers what no event tells: an object that
// is not Gatewright's, which the cache does not hold.

// objectName names an object regardless of its API version.
type objectName struct {
	group, kind, namespace, name string
}

func nameOfEntry(e apply.Entry) objectName {
	return nameOf(e.APIVersion, e.Kind, e.Namespace, e.Name)
}

func nameOfRendered(o gatewrightv1alpha1.RenderedObject) objectName {
	return nameOf(o.APIVersion, o.Kind, o.Namespace, o.Name)
}

func nameOf(apiVersion, kind, namespace, name string) objectName {
	gk := schema.FromAPIVersionAndKind(apiVersion, kind).GroupKind()
	return objectName{group: gk.Group, kind: gk.Kind, namespace: namespace, name: name}
}

// refusedNames is the name err refuses to take over when err is an apply.ConflictError,
// else none.
func refusedNames(err error) []objectName {
	var conflict *apply.ConflictError
	if !errors.As(err, &conflict) {
		return nil
	}
	return []objectName{nameOfEntry(conflict.Object)}
}

const (
	// maxWaitingOwners bounds the memory: past it, a refused owner is only requeued.
	maxWaitingOwners = 4096
	// contestedRetry is the first requeue of a refused owner; each refusal in a row
	// doubles it, up to contestedRetryMax.
	contestedRetry    = 30 * time.Second
	contestedRetryMax = 10 * time.Minute
)

// contestedNames maps each contested name to the owners (reconcile requests) waiting for it.
type contestedNames struct {
	mu      sync.Mutex
	waiting map[objectName]map[reconcile.Request]bool
	owners  map[reconcile.Request]*waitingOwner
}

type waitingOwner struct {
	names    []objectName
	refusals int
}

func newContestedNames() *contestedNames {
	return &contestedNames{waiting: map[objectName]map[reconcile.Request]bool{}, owners: map[reconcile.Request]*waitingOwner{}}
}

// wait records the names req was refused for in its last round, none when it was not
// refused, and returns how soon to retry it anyway (zero when not refused).
func (c *contestedNames) wait(req reconcile.Request, names []objectName) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.owners[req]
	if w != nil {
		c.unlink(req, w.names)
	}
	if len(names) == 0 {
		delete(c.owners, req)
		return 0
	}
	if w == nil {
		if len(c.owners) >= maxWaitingOwners {
			return contestedRetry
		}
		w = &waitingOwner{}
		c.owners[req] = w
	}
	w.names, w.refusals = names, w.refusals+1
	for _, name := range names {
		if c.waiting[name] == nil {
			c.waiting[name] = map[reconcile.Request]bool{}
		}
		c.waiting[name][req] = true
	}
	return min(contestedRetry<<min(w.refusals-1, 5), contestedRetryMax)
}

// release returns the owners waiting for name, and forgets them: they are retried now.
func (c *contestedNames) release(name objectName) []reconcile.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	var requests []reconcile.Request
	for req := range c.waiting[name] {
		requests = append(requests, req)
		c.unlink(req, c.owners[req].names)
		delete(c.owners, req)
	}
	return requests
}

func (c *contestedNames) unlink(req reconcile.Request, names []objectName) {
	for _, name := range names {
		delete(c.waiting[name], req)
		if len(c.waiting[name]) == 0 {
			delete(c.waiting, name)
		}
	}
}

// releasedByRenderings enqueues the owners waiting for the names a Rendering stops
// listing: on an update those the new one lacks, on a deletion all of them. An object
// leaves a Rendering once it is pruned or cleaned up.
func (c *contestedNames) releasedByRenderings() handler.EventHandler {
	type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
	releaseAll := func(objects []gatewrightv1alpha1.RenderedObject, kept map[objectName]bool, q queue) {
		for _, o := range objects {
			name := nameOfRendered(o)
			if kept[name] {
				continue
			}
			for _, req := range c.release(name) {
				q.Add(req)
			}
		}
	}
	return handler.Funcs{
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q queue) {
			old, oldOK := e.ObjectOld.(*gatewrightv1alpha1.Rendering)
			updated, newOK := e.ObjectNew.(*gatewrightv1alpha1.Rendering)
			if !oldOK || !newOK {
				return
			}
			kept := map[objectName]bool{}
			for _, o := range updated.Objects {
				kept[nameOfRendered(o)] = true
			}
			releaseAll(old.Objects, kept, q)
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q queue) {
			if r, ok := e.Object.(*gatewrightv1alpha1.Rendering); ok {
				releaseAll(r.Objects, nil, q)
			}
		},
	}
}
