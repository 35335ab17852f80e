package ctrlutil

import (
	"sync"

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
type writtenVersions struct {
	mu       sync.Mutex
	versions map[types.UID]string
}

var written = &writtenVersions{versions: map[types.UID]string{}}

// unconfirmed tells whether obj, as read, may predate a status write of this process.
func (w *writtenVersions) unconfirmed(obj client.Object) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	version, wrote := w.versions[obj.GetUID()]
	return wrote && version != obj.GetResourceVersion()
}

// record keeps the version a write left on obj; "" forgets obj (it is gone).
func (w *writtenVersions) record(obj client.Object, version string) {
	if obj.GetUID() == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if version == "" {
		delete(w.versions, obj.GetUID())
		return
	}
	w.versions[obj.GetUID()] = version
}
