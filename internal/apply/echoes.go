package apply

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// echoes tells apart the watch events that Gatewright's own applies cause. Such an
// event tells the owner's reconciler nothing new: the round that applied the object
// judged it as the API server answered. Dropping it spares each new Gateway a second
// round that would render everything again to find nothing to do.
//
// A resourceVersion is unique to one write, so an event that carries the version an
// apply answered with is that apply's, never anyone else's change. The event often
// arrives before the answer does; while an apply is in flight, the events of its object
// are held, and each is passed on (requeue) once the answer shows it was not the
// apply's. Any event after the apply's own, or of an object no apply is waiting for,
// passes at once.
type echoes struct {
	mu      sync.Mutex
	objects map[echoKey]*echo
}

type echoKey struct {
	group, kind, namespace, name string
}

func keyOf(gk schema.GroupKind, obj client.Object) echoKey {
	return echoKey{gk.Group, gk.Kind, obj.GetNamespace(), obj.GetName()}
}

// echo is one object's apply: in flight (held events wait for its answer), or answered
// with version, whose event has not arrived yet.
type echo struct {
	inFlight bool
	held     []heldEvent
	version  string
}

type heldEvent struct {
	version string
	requeue func()
}

// applying marks obj's apply as in flight. Events held for an apply of the same object
// still in flight (two owners' rounds racing for one name, which the guard then settles)
// are passed on rather than lost: passing one on costs a reconcile, losing one a change.
func (e *echoes) applying(obj *unstructured.Unstructured) {
	e.mu.Lock()
	if e.objects == nil {
		e.objects = map[echoKey]*echo{}
	}
	key := keyOf(obj.GroupVersionKind().GroupKind(), obj)
	var requeues []func()
	if previous := e.objects[key]; previous != nil {
		for _, h := range previous.held {
			requeues = append(requeues, h.requeue)
		}
	}
	e.objects[key] = &echo{inFlight: true}
	e.mu.Unlock()
	for _, requeue := range requeues {
		requeue()
	}
}

// applied ends obj's apply: live is the object as the apply left it when it created or
// changed it, nil when the apply failed or changed nothing (no event of it will come).
// Held events of other versions are passed on.
func (e *echoes) applied(obj, live *unstructured.Unstructured) {
	e.mu.Lock()
	key := keyOf(obj.GroupVersionKind().GroupKind(), obj)
	current := e.objects[key]
	delete(e.objects, key)
	var requeues []func()
	if current != nil {
		version, arrived := "", false
		if live != nil {
			version = live.GetResourceVersion()
		}
		for _, h := range current.held {
			if live != nil && h.version == version {
				arrived = true
				continue
			}
			requeues = append(requeues, h.requeue)
		}
		if live != nil && !arrived {
			e.objects[key] = &echo{version: version}
		}
	}
	e.mu.Unlock()
	for _, requeue := range requeues {
		requeue()
	}
}

// observed judges a watch event's object of kind gk: true when the event is to be
// dropped, now (an apply's own) or until the answer of the apply in flight shows whose it
// is; requeue then passes it on.
func (e *echoes) observed(gk schema.GroupKind, obj client.Object, requeue func()) bool {
	key := keyOf(gk, obj)
	e.mu.Lock()
	defer e.mu.Unlock()
	current := e.objects[key]
	switch {
	case current == nil:
		return false
	case current.inFlight:
		current.held = append(current.held, heldEvent{version: obj.GetResourceVersion(), requeue: requeue})
		return true
	}
	delete(e.objects, key)
	return current.version == obj.GetResourceVersion()
}

// OwnWrite judges a watch event's object of kind gk: true when the event is one of this
// Applier's applies caused, or may be, and is to be dropped. requeue passes on an event
// held while an apply of its object was in flight once the apply's answer shows the
// event was someone else's. A deletion is never an apply's: pass it on regardless.
func (a *Applier) OwnWrite(gk schema.GroupKind, obj client.Object, requeue func()) bool {
	return a.echoes.observed(gk, obj, requeue)
}
