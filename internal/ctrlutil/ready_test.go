package ctrlutil

import (
	"net/http/httptest"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
)

func TestCachesSyncedIsReadyOnceTheCachesHaveSynced(t *testing.T) {
	synced := false
	check := CachesSynced(&informertest.FakeInformers{Synced: &synced})
	probe := httptest.NewRequest("GET", "/readyz", nil)

	if err := check(probe); err == nil {
		t.Fatal("ready before the caches synced")
	}
	synced = true
	if err := check(probe); err != nil {
		t.Fatalf("not ready once the caches synced: %v", err)
	}
	synced = false // a kind watched later, still syncing
	if err := check(probe); err != nil {
		t.Fatalf("not ready while a kind watched later syncs: %v", err)
	}
}
