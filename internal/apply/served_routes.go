package apply

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/conditions"
)

// A Gateway's record says which routes the configuration it last applied holds, so that
// a route says Accepted=True only when the Gateway serves it, even while the Gateway's
// latest render fails: 8 bytes of a digest per route, at most maxServedRoutes of them
// (the CRD's bound on servedRoutes, above the default bound of 10,000 routes per
// Gateway). A Gateway with more records none: while its latest render is not applied,
// its routes say they wait, which is the safe side.
const (
	servedDigestSize = 8
	maxServedRoutes  = 12000
)

// ServedRoutes is the servedRoutes record of routes, those a Gateway's configuration
// holds. The digests are arrays, not slices of each route's sum: a Gateway of thousands
// of routes records them at each render.
func ServedRoutes(routes []metav1.Object) string {
	if len(routes) > maxServedRoutes {
		return ""
	}
	digests := make([][servedDigestSize]byte, len(routes))
	for i, route := range routes {
		digests[i] = servedDigest(route)
	}
	slices.SortFunc(digests, func(a, b [servedDigestSize]byte) int { return bytes.Compare(a[:], b[:]) })
	served := make([]byte, 0, len(digests)*servedDigestSize)
	for _, d := range digests {
		served = append(served, d[:]...)
	}
	return base64.StdEncoding.EncodeToString(served)
}

// servedDigest is the digest of route's UID and generation.
func servedDigest(route metav1.Object) [servedDigestSize]byte {
	var id [64]byte
	sum := sha256.Sum256(strconv.AppendInt(append(append(id[:0], route.GetUID()...), '/'), route.GetGeneration(), 10))
	return [servedDigestSize]byte(sum[:servedDigestSize])
}

// Serves tells whether head, part 0 of Gateway gateway's record, says its configuration
// holds route as it is (its generation): always when its latest render was applied,
// since what keeps a route out of it then says so itself (its own refusal, a cutoff);
// never when there is no record or one that does not parse; else when its servedRoutes
// has the route. When not, why says so, for the route's Accepted condition.
func Serves(head *gatewrightv1alpha1.Rendering, gateway string, route metav1.Object) (ok bool, why string) {
	if head == nil {
		return false, fmt.Sprintf("Gateway %s has applied no configuration yet", gateway)
	}
	if head.NotApplied == "" {
		return true, ""
	}
	// Why the Gateway's render failed is the Gateway's to tell (its Programmed
	// condition): it may name what the route's owner may not read.
	notServed := fmt.Sprintf("Gateway %s did not apply its latest configuration, which holds this route; its Programmed condition says why", gateway)
	served, err := base64.StdEncoding.DecodeString(head.ServedRoutes)
	if err != nil || len(served)%servedDigestSize != 0 {
		return false, notServed
	}
	// A binary search over the sorted digests in place: every route of a Gateway reads
	// them, so nothing is copied per read.
	want := servedDigest(route)
	n := len(served) / servedDigestSize
	i := sort.Search(n, func(i int) bool {
		return bytes.Compare(served[i*servedDigestSize:(i+1)*servedDigestSize], want[:]) >= 0
	})
	if i == n || !bytes.Equal(served[i*servedDigestSize:(i+1)*servedDigestSize], want[:]) {
		return false, notServed
	}
	return true, ""
}

// RecordNotApplied says on the Gateway's part 0 that its latest render was not applied,
// and why (message, cut to the field's bound), with servedRoutes as read: what an
// apply that failed recorded before it does not count. Nothing else of the record
// changes, so that what a rollout reads of it stays as it was. A Gateway without a
// record gets none: routes read it as serving nothing already.
func (a *Applier) RecordNotApplied(ctx context.Context, rec *Record, message string) error {
	part := rec.parts[0]
	if part == nil || !part.DeletionTimestamp.IsZero() {
		return nil
	}
	message = conditions.Truncate(message, maxNotApplied)
	served := ""
	if rec.read != nil {
		served = rec.read.servedRoutes
	}
	if part.NotApplied == message && part.ServedRoutes == served {
		return nil
	}
	updated := part.DeepCopy()
	updated.NotApplied, updated.ServedRoutes = message, served
	if err := a.client.Update(ctx, updated); err != nil {
		return fmt.Errorf("recording that %s's latest render was not applied: %w", rec.owner, err)
	}
	rec.parts[0] = updated
	rec.NotApplied, rec.ServedRoutes = message, served
	return nil
}

// maxNotApplied is the CRD's bound on notApplied.
const maxNotApplied = 1024
