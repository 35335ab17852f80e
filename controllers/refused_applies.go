package controllers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
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
	if r.err == nil || r.digest == "" || now.Sub(r.at) > refusedApplyHold {
		return nil
	}
	if renderDigest(rec, objs) != r.digest {
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
	r.digest, r.err, r.at = renderDigest(rec, objs), err, now
}

// renderDigest is a digest of what an apply of objs writes that the API server may
// refuse: the objects as rendered, and the values the record holds besides them. (Not
// the revision: a blueprint's first revision renders what its live spec did.)
func renderDigest(rec *apply.Record, objs []*unstructured.Unstructured) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", rec.ValuesHash)
	for _, obj := range objs {
		data, err := json.Marshal(asRendered(obj.Object))
		if err != nil {
			return "" // never the digest of a refusal: applied again
		}
		h.Write(data)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// asRendered is obj without what the apply adds to a rendered object in place (its
// owner references and its rendered-hash annotation): the render refused, and the same
// render next time, before its apply, give one digest.
func asRendered(obj map[string]any) map[string]any {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	meta = maps.Clone(meta)
	delete(meta, "ownerReferences")
	if annotations, ok := meta["annotations"].(map[string]any); ok {
		annotations = maps.Clone(annotations)
		delete(annotations, apply.RenderedHashAnnotation)
		meta["annotations"] = annotations
		if len(annotations) == 0 {
			delete(meta, "annotations")
		}
	}
	out := maps.Clone(obj)
	out["metadata"] = meta
	return out
}
