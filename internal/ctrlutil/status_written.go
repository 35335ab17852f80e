package ctrlutil

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// writtenVersions remembers, by UID, the resourceVersion the last status write of this
// process left on each object. A status is computed from the cached object, and the
// write is skipped when the cached status already says the same; but the cache may not
// have seen the controller's own last write yet (a round that a child's event starts at
// once), and then it says what the server no longer holds: a Programmed=True cached
// while the server holds the Pending just written would never be written again, since
// a status write starts no round. An object whose cached version is not the one the
// last write left is written, not compared, with an optimistic lock on the version read:
// a cache behind the write gets a conflict and a round again once it caught up; a cache
// ahead of it (someone else wrote since) gets its status written over what it read.
//
// An entry matters only until the cache shows the write, a few milliseconds: it is
// forgotten once read back confirmed, and entries older than writtenKept (of objects
// gone, or never read again) are swept as the map grows, so it holds the writes of the
// last minutes, not of the process's life.
type writtenVersions struct {
	mu       sync.Mutex
	versions map[types.UID]written
	// sweepAt is the size past which record sweeps old entries.
	sweepAt int
}

type written struct {
	version string
	at      time.Time
}

// writtenKept is how long an unconfirmed write is remembered: far longer than any
// cache lags behind its API server.
const writtenKept = 10 * time.Minute

var writes = &writtenVersions{versions: map[types.UID]written{}, sweepAt: 1024}

// unconfirmed tells whether obj, as read, may predate a status write of this process.
// A copy that carries the version the write left confirms it: the entry is dropped.
func (w *writtenVersions) unconfirmed(obj client.Object) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	last, wrote := w.versions[obj.GetUID()]
	if wrote && last.version == obj.GetResourceVersion() {
		delete(w.versions, obj.GetUID())
		return false
	}
	return wrote
}

// record keeps the version a write left on obj at now; "" forgets obj (it is gone).
func (w *writtenVersions) record(obj client.Object, version string, now time.Time) {
	if obj.GetUID() == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if version == "" {
		delete(w.versions, obj.GetUID())
		return
	}
	w.versions[obj.GetUID()] = written{version: version, at: now}
	if len(w.versions) < w.sweepAt {
		return
	}
	for uid, entry := range w.versions {
		if now.Sub(entry.at) > writtenKept {
			delete(w.versions, uid)
		}
	}
	w.sweepAt = max(1024, 2*len(w.versions))
}
