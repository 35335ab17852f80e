package controllers

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatewright/gatewright/internal/apply"
)

// refusedApplyHold is how long a Gateway's render the API server refused as invalid is
// not applied again unchanged. Past it, the next reconcile applies it once more: what
// refused it may have changed without the Gateway's inputs (a CRD's schema, an
// admission webhook).
const refusedApplyHold = time.Minute

// refusedApply is the last render of a Gateway that the API server refused as invalid
// (translate.InputError): what its apply wrote of it and why it was refused. That
// render is not applied again while it is the same and held (refusedApplyHold): any
// event would bring a reconcile that sends it again, to be refused the same, an event
// and a failed apply each; the status keeps saying why.
type refusedApply struct {
	mu     sync.Mutex
	digest string
	err    error
	at     time.Time
}

// again is the error that refused the same render, objs recorded by rec, within the
// hold; nil when there is none, and the render is to be applied.
func (r *refusedApply) again(rec *apply.Record, objs []*unstructured.Unstructured, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil || now.Sub(r.at) > refusedApplyHold {
		return nil
	}
	if rec.RenderedDigest(objs) != r.digest {
		return nil
	}
	return r.err
}

// remember notes that the API server refused the render, objs recorded by rec, with
// err; any other outcome of an apply forgets the last refusal.
func (r *refusedApply) remember(rec *apply.Record, objs []*unstructured.Unstructured, err error, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil || !isInputError(err) {
		r.digest, r.err = "", nil
		return
	}
	r.digest, r.err, r.at = rec.RenderedDigest(objs), err, now
}
