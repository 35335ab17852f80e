package render

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Cache holds parsed blueprints by name, UID and generation: a blueprint is parsed
// once per change, however many Gateways render it. It is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	uid        types.UID
	generation int64
	parsed     *Blueprint
	err        error
}

// Get returns bp parsed, parsing it only when the cache holds another generation.
// A blueprint that does not parse is remembered too, with its error.
func (c *Cache) Get(bp *gatewrightv1alpha1.GatewayClassBlueprint) (*Blueprint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[bp.Name]; ok && e.uid == bp.UID && e.generation == bp.Generation {
		return e.parsed, e.err
	}
	parsed, err := Parse(bp)
	if c.entries == nil {
		c.entries = map[string]cacheEntry{}
	}
	c.entries[bp.Name] = cacheEntry{uid: bp.UID, generation: bp.Generation, parsed: parsed, err: err}
	return parsed, err
}

// Forget drops a deleted blueprint.
func (c *Cache) Forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, name)
}
