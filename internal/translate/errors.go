package translate

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/values"
)

// InvalidParametersError says that a GatewayClass's (or a Gateway's) parameters cannot
// be used; Gateway API asks for Accepted=False/InvalidParameters.
type InvalidParametersError struct {
	Message string
	Cause   error
}

func (e *InvalidParametersError) Error() string { return e.Message }

func (e *InvalidParametersError) Unwrap() error { return e.Cause }

// ErrCacheBehind says that an object a write of the controller's own names (a blueprint
// revision, written just before the status that names it) is not in the cache yet: the
// round is retried at once, as after a Conflict, without an error logged for it.
var ErrCacheBehind = errors.New("the cache is behind")

// ErrorClass says what to do about an error.
type ErrorClass int

const (
	// NoError is the class of nil.
	NoError ErrorClass = iota
	// InputError comes from the inputs (values, templates, references): retrying cannot
	// help until they change, and a change brings the object back.
	InputError
	// Transient may pass by itself: retry with backoff.
	Transient
	// Conflict is a write refused because what it was based on is stale, or a read of a
	// cache that is behind (ErrCacheBehind): retry at once.
	Conflict
)

// Classify says what kind of error err is. A rendered kind the API server does not
// serve is transient, not an input error: its CRD may be installed at any time, and
// nothing would trigger a reconcile then. A render's time and shared memory depend on
// what else runs too.
func Classify(err error) ErrorClass {
	switch {
	case err == nil:
		return NoError
	case apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || errors.Is(err, ErrCacheBehind):
		return Conflict
	case meta.IsNoMatchError(err) || errors.Is(err, render.ErrTimeLimit) || errors.Is(err, render.ErrBusy):
		return Transient
	case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
		return InputError // the API server refused a rendered object: the blueprint or values must change
	}
	var invalid *InvalidParametersError
	var schemaErr *values.SchemaError
	var limitErr *values.LimitError
	var policyErr *values.PolicyError
	var sumErr *values.SumLimitError
	if AsInvalidParameters(err, &invalid) || errors.As(err, &schemaErr) || errors.As(err, &limitErr) ||
		errors.As(err, &policyErr) || errors.As(err, &sumErr) {
		return InputError
	}
	return Transient
}

// AsInvalidParameters tells whether err means that a reference or the blueprint it
// leads to cannot be used (as opposed to a failure to read the API), and sets target.
func AsInvalidParameters(err error, target **InvalidParametersError) bool {
	if errors.As(err, target) {
		return true
	}
	var renderErr *render.Error
	var refErr *values.ParametersRefError
	if errors.As(err, &renderErr) || errors.As(err, &refErr) {
		*target = &InvalidParametersError{Message: err.Error(), Cause: err}
		return true
	}
	return false
}
