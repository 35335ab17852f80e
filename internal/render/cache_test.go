package render_test

import (
	"testing"

	"github.com/gatewright/gatewright/internal/render"
)

func TestCacheParsesOncePerGeneration(t *testing.T) {
	var cache render.Cache
	bp := gatewayTemplates(t, configMap)
	bp.UID, bp.Generation = "uid-1", 1

	first, err := cache.Get(bp)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := cache.Get(bp); again != first {
		t.Error("the same generation was parsed again")
	}

	bp.Generation = 2
	bp.Spec.GatewayTemplate.ResourceTemplates[0].Template = "{{ broken"
	if _, err := cache.Get(bp); err == nil {
		t.Fatal("a new generation that does not parse was served from the cache")
	}

	cache.Forget(bp.Name)
	bp.Generation = 1
	bp.Spec.GatewayTemplate.ResourceTemplates[0].Template = configMap
	if again, err := cache.Get(bp); err != nil || again == first {
		t.Errorf("after Forget the blueprint must be parsed anew (err %v)", err)
	}

	again, _ := cache.Get(bp)
	bp.UID = "uid-2" // deleted and created again under the same name
	if recreated, err := cache.Get(bp); err != nil || recreated == again {
		t.Errorf("a blueprint with a new UID must be parsed anew (err %v)", err)
	}
}

func TestCacheKeepsTheVersionsInUse(t *testing.T) {
	var cache render.Cache
	revision := func(n int64) *render.Blueprint {
		t.Helper()
		bp := gatewayTemplates(t, configMap)
		bp.UID, bp.Generation = "revision-uid", n
		parsed, err := cache.Get(bp)
		if err != nil {
			t.Fatal(err)
		}
		return parsed
	}
	stable, target := revision(1), revision(2)
	for range 3 { // Gateways of one class running either revision, in turn
		if revision(1) != stable || revision(2) != target {
			t.Fatal("a revision in use was parsed again")
		}
	}
	for n := int64(3); n < 3+4; n++ {
		revision(n)
	}
	if revision(1) == stable {
		t.Error("the cache kept more than four versions of one blueprint")
	}
}
