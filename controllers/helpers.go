package controllers

import (
	"context"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/gatewright/gatewright/internal/translate"
)

func requestsFor(names []types.NamespacedName) []reconcile.Request {
	requests := make([]reconcile.Request, len(names))
	for i, name := range names {
		requests[i] = reconcile.Request{NamespacedName: name}
	}
	return requests
}

// isInputError tells whether err comes from the inputs: retrying cannot help until they
// change, and a change triggers a reconcile.
func isInputError(err error) bool { return translate.Classify(err) == translate.InputError }

// logRefusedApply logs an apply the API server refused as invalid, which is not retried
// (isInputError): the log line is the only one until the input changes, where a retried
// error would print one per backoff step.
func logRefusedApply(ctx context.Context, err error) {
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
		log.FromContext(ctx).Info("The API server refused a rendered object; waiting for the blueprint or values to change", "error", err.Error())
	}
}

// staleRecordRetry is how soon a reconcile that read a Rendering older than the API
// server's comes back (retryingConflicts): the cache is usually a few milliseconds
// behind a write.
const staleRecordRetry = 100 * time.Millisecond

// staleRecord tells whether err is a Rendering write refused because the Rendering was
// read from a cache that had not seen the previous write yet. Nothing went wrong:
// writing anyway could drop what the previous round recorded, so the round is retried.
// Server-side applies force ownership and so never conflict.
func staleRecord(err error) bool { return translate.Classify(err) == translate.Conflict }

// setAnnotation sets key to value on obj, or removes it when value is empty.
func setAnnotation(obj client.Object, key, value string) {
	annotations := obj.GetAnnotations()
	if value == "" {
		delete(annotations, key)
	} else {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[key] = value
	}
	obj.SetAnnotations(annotations)
}

// kindScopes remembers whether each kind is namespaced, as the cluster's REST mapper
// says. The renderer asks for every object it places, and the mapper, though it caches
// its discovery, allocates a few kilobytes for every answer. A kind's scope cannot
// change under a running controller: a CRD's spec.scope is immutable, and the mapper
// would not see a CRD deleted and created again with another scope either.
type kindScopes struct {
	client     client.Client
	namespaced sync.Map // schema.GroupVersionKind -> bool
}

func (s *kindScopes) isNamespaced(gvk schema.GroupVersionKind) (bool, error) {
	if namespaced, ok := s.namespaced.Load(gvk); ok {
		return namespaced.(bool), nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	namespaced, err := s.client.IsObjectNamespaced(obj)
	if err != nil {
		return false, err // a kind not served yet is asked again
	}
	s.namespaced.Store(gvk, namespaced)
	return namespaced, nil
}
