package ctrlutil

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
)

// cacheSyncWait is how long one probe waits for the caches: well within a probe's
// default timeout of a second.
const cacheSyncWait = 100 * time.Millisecond

// CachesSynced is a readiness check that passes once c holds every object of the kinds
// it watches: until then the controller has reconciled nothing, and a replica that says it
// is ready would let a rolling update stop the old one early. Once passed it stays
// passed, so that a kind first watched later (a blueprint's new kind) does not take a
// working replica out of its Service while that kind syncs.
func CachesSynced(c cache.Cache) healthz.Checker {
	var synced atomic.Bool
	return func(req *http.Request) error {
		if synced.Load() {
			return nil
		}
		ctx, cancel := context.WithTimeout(req.Context(), cacheSyncWait)
		defer cancel()
		if !c.WaitForCacheSync(ctx) {
			return errors.New("the caches have not synced yet")
		}
		synced.Store(true)
		return nil
	}
}
