package controllers

import (
	"errors"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/gatewright/gatewright/internal/render"
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
func asInvalidParameters(err error, target **invalidParametersError) bool {
	if errors.As(err, target) {
		return true
	}
	var renderErr *render.Error
	var refErr *values.ParametersRefError
	if errors.As(err, &renderErr) || errors.As(err, &refErr) {
		*target = &invalidParametersError{err.Error()}
		return true
	}
	return false
}

// isInputError tells whether err comes from the inputs (values, templates, references):
// retrying cannot help until they change, and a change triggers a reconcile.
func isInputError(err error) bool {
	var invalid *invalidParametersError
	var schemaErr *values.SchemaError
	return asInvalidParameters(err, &invalid) || errors.As(err, &schemaErr)
}
