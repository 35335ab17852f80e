package controllers

import (
	"context"
	"errors"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/values"
)

func requestsFor(names []types.NamespacedName) []reconcile.Request {
	requests := make([]reconcile.Request, len(names))
	for i, name := range names {
		requests[i] = reconcile.Request{NamespacedName: name}
	}
	return requests
}

// asInvalidParameters tells whether err means that a reference or the blueprint it
// leads to cannot be used (as opposed to a failure to read the API).
func asInvalidParameters(err error, target **snapshot.InvalidParametersError) bool {
	if errors.As(err, target) {
		return true
	}
	var renderErr *render.Error
	var refErr *values.ParametersRefError
	if errors.As(err, &renderErr) || errors.As(err, &refErr) {
		*target = &snapshot.InvalidParametersError{Message: err.Error(), Cause: err}
		return true
	}
	return false
}

// isInputError tells whether err comes from the inputs (values, templates, references):
// retrying cannot help until they change, and a change triggers a reconcile. A rendered
// kind the API server does not serve is not one: its CRD may be installed at any time,
// and nothing would trigger a reconcile then, so it is retried with backoff.
func isInputError(err error) bool {
	if meta.IsNoMatchError(err) || errors.Is(err, render.ErrTimeLimit) || errors.Is(err, render.ErrBusy) {
		return false // a render's time and shared memory depend on what else runs, too
	}
	var invalid *snapshot.InvalidParametersError
	var schemaErr *values.SchemaError
	var limitErr *values.LimitError
	var policyErr *values.PolicyError
	var sumErr *values.SumLimitError
	if errors.As(err, &sumErr) {
		return true
	}
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
		return true // the API server refused a rendered object: the blueprint or values must change
	}
	return asInvalidParameters(err, &invalid) || errors.As(err, &schemaErr) || errors.As(err, &limitErr) || errors.As(err, &policyErr)
}

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
func staleRecord(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
}

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
