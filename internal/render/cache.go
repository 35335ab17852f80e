package render

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// versionsKept is how many versions of one blueprint the cache holds: during a rollout
// Gateways run two revisions at once (the stable one and the target), and the blueprint
// is judged in its latest form besides.
const versionsKept = 4

// Cache holds parsed blueprints by name, UID and generation (a revision's: see
// internal/snapshot): a blueprint is parsed once per version, however many Gateways
// render it, and Gateways running different revisions do not parse them over and over.
// It is safe for concurrent use.
type Cache struct {
	// Caps hold the renderLimits of the blueprints (ParseWithin); a field that is not
	// positive is DefaultCaps'. Set before the first Get.
	Caps    Bounds
	mu      sync.Mutex
	entries map[string][]cacheEntry // by name, the last used first
}

type cacheEntry struct {
	uid        types.UID
	generation int64
	parsed     *Blueprint
	err        error
}

// Get returns bp parsed, parsing it only when the cache does not hold its UID and
// generation. A blueprint that does not parse is remembered too, with its error.
func (c *Cache) Get(bp *gatewrightv1alpha1.GatewayClassBlueprint) (*Blueprint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	versions := c.entries[bp.Name]
	for i, e := range versions {
		if e.uid == bp.UID && e.generation == bp.Generation {
			c.entries[bp.Name] = slices.Insert(slices.Delete(versions, i, i+1), 0, e)
			return e.parsed, e.err
		}
	}
	parsed, err := ParseWithin(bp, c.Caps)
	if c.entries == nil {
		c.entries = map[string][]cacheEntry{}
	}
	versions = slices.Insert(versions, 0, cacheEntry{uid: bp.UID, generation: bp.Generation, parsed: parsed, err: err})
	c.entries[bp.Name] = versions[:min(len(versions), versionsKept)]
	return parsed, err
}

// Forget drops a deleted blueprint.
func (c *Cache) Forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, name)
}
