package ctrlutil

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The memo of status writes holds only writes the cache has not shown yet: a copy that
// carries the version confirms it, and writes older than writtenKept go as it grows.
func TestWrittenVersionsHoldOnlyUnconfirmedRecentWrites(t *testing.T) {
	w := &writtenVersions{versions: map[types.UID]written{}, sweepAt: 4}
	obj := func(uid, version string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), ResourceVersion: version}}
	}
	start := time.Now()
	w.record(obj("a", "1"), "2", start)
	if !w.unconfirmed(obj("a", "1")) {
		t.Fatal("a copy older than the write is taken for the server's")
	}
	if w.unconfirmed(obj("a", "2")) || len(w.versions) != 0 {
		t.Fatalf("a copy that shows the write leaves the entry: %v", w.versions)
	}
	for i := range 3 {
		w.record(obj(fmt.Sprint("old", i), "1"), "2", start)
	}
	w.record(obj("new", "1"), "2", start.Add(writtenKept+time.Second))
	if len(w.versions) != 1 || !w.unconfirmed(obj("new", "1")) {
		t.Errorf("after the sweep the memo holds %v, want only the recent write", w.versions)
	}
}
