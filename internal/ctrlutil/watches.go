package ctrlutil

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// MapTo enqueues the requests fn maps an event's object to.
func MapTo(fn handler.MapFunc) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(fn)
}

// RequestsFor are the reconcile requests for names.
func RequestsFor(names []types.NamespacedName) []reconcile.Request {
	requests := make([]reconcile.Request, len(names))
	for i, name := range names {
		requests[i] = reconcile.Request{NamespacedName: name}
	}
	return requests
}

// SpecChanged passes the events that can change what a controller makes of an object:
// a new generation (a spec edit, or the start of a deletion), a creation or a deletion.
// Status, which controllers write themselves, changes nothing.
var SpecChanged = builder.WithPredicates(predicate.GenerationChangedPredicate{})

// Deleted passes deletions only.
var Deleted = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
}

// Created passes creations only.
var Created = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return true },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
}

// Going passes the events after which an object may be gone: its deletion, and the
// update that marks it for deletion.
var Going = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.GetDeletionTimestamp().IsZero() && !e.ObjectNew.GetDeletionTimestamp().IsZero()
	},
}

// CameOrWent passes the creation and deletion of an object cached as metadata: for
// what only its existence tells.
var CameOrWent = predicate.TypedFuncs[*metav1.PartialObjectMetadata]{
	UpdateFunc: func(event.TypedUpdateEvent[*metav1.PartialObjectMetadata]) bool { return false },
}

// NewVersion passes the events of an object cached as metadata that may say something
// new: it comes, goes, or gets a new resourceVersion (not a resync).
var NewVersion = predicate.TypedFuncs[*metav1.PartialObjectMetadata]{
	UpdateFunc: func(e event.TypedUpdateEvent[*metav1.PartialObjectMetadata]) bool {
		return e.ObjectOld.ResourceVersion != e.ObjectNew.ResourceVersion
	},
	GenericFunc: func(event.TypedGenericEvent[*metav1.PartialObjectMetadata]) bool { return false },
}
