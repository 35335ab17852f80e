package controllers

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/translate"
)

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

// staleRecord tells whether err is a write refused because what it was based on was
// read from a cache that had not seen the previous write yet (a Rendering, say).
// Nothing went wrong: writing anyway could drop what the previous round recorded, so
// the round is retried (ctrlutil.RetryingConflicts). Server-side applies force
// ownership and so never conflict.
func staleRecord(err error) bool { return translate.Classify(err) == translate.Conflict }

// renderStopped tells whether err is a render stopped by its time limit or because the
// renders running at once held the memory they share: it says nothing of the inputs, so
// the round is retried and the last verdict stands, rather than a Programmed Gateway or
// an accepted route turning Invalid because the controller was busy.
func renderStopped(err error) bool {
	return errors.Is(err, render.ErrTimeLimit) || errors.Is(err, render.ErrBusy)
}
