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
