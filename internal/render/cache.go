package render

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Cache holds parsed blueprints by UID and generation: a blueprint is parsed once per
// change, however many Gateways render it. It is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	entries map[types.UID]cacheEntry
}

type cacheEntry struct {
	generation int64
	parsed     *Blueprint
	err        error
}

// Get returns bp parsed, parsing it only when the cache holds another generation.
// A blueprint that does not parse is remembered too, with its error.
func (c *Cache) Get(bp *gatewrightv1alpha1.GatewayClassBlueprint) (*Blueprint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[bp.UID]; ok && e.generation == bp.Generation {
		return e.parsed, e.err
	}
	parsed, err := Parse(bp)
	if c.entries == nil {
		c.entries = map[types.UID]cacheEntry{}
	}
	c.entries[bp.UID] = cacheEntry{generation: bp.Generation, parsed: parsed, err: err}
	return parsed, err
}

// Forget drops a deleted blueprint.
func (c *Cache) Forget(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, uid)
}
