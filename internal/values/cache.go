package values

import (
	"container/list"
	"crypto/sha256"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Bounds on the decoded blocks kept between computations. Elements bound the maps and
// lists held, bytes the strings; a block counts one element more than it has, so that
// many empty blocks count too. Twenty blocks at MaxElements, or five chains at
// MaxChainElements, fit; the blocks of real chains are a few dozen elements each.
const (
	maxCachedElements = 200_000
	maxCachedBytes    = 32 << 20
)

// blockKey names one version of one half of a policy. An object read from the API
// server is named by its UID and generation, which changes with every change of its
// spec; any other (from a file, or built in a test) by the SHA-256 of its JSON. Either
// way a changed block has a new key and never meets the entry of its old version.
type blockKey struct {
	source     Source
	half       Half
	uid        types.UID
	generation int64
	sum        [sha256.Size]byte
}

// key names half of p, whose JSON is raw.
func (p policy) key(half Half, raw []byte) blockKey {
	k := blockKey{source: p.source, half: half}
	if p.uid != "" && p.generation != 0 {
		k.uid, k.generation = p.uid, p.generation
	} else {
		k.sum = sha256.Sum256(raw)
	}
	return k
}

// readHalf is one half of a policy, measured and then decoded, or found in the cache.
type readHalf struct {
	key   blockKey
	size  blockSize
	block *block // nil for JSON null
}

// blockCache keeps the most recently used decoded blocks, so that a policy is decoded
// once per generation rather than at every computation of every Gateway and route it
// reaches. The blocks are shared between computations, which only read them (the
// folder copies what it keeps). Safe for concurrent use.
type blockCache struct {
	maxElements, maxBytes int

	mu               sync.Mutex
	entries          map[blockKey]*list.Element // of *readHalf
	recent           *list.List                 // most recently used first
	elements, nbytes int
}

func newBlockCache(maxElements, maxBytes int) *blockCache {
	return &blockCache{maxElements: maxElements, maxBytes: maxBytes, entries: map[blockKey]*list.Element{}, recent: list.New()}
}

// decodedBlocks is the cache every computation uses.
var decodedBlocks = newBlockCache(maxCachedElements, maxCachedBytes)

func (c *blockCache) get(key blockKey) (readHalf, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	element, ok := c.entries[key]
	if !ok {
		return readHalf{}, false
	}
	c.recent.MoveToFront(element)
	return *element.Value.(*readHalf), true
}

// put keeps h, evicting the least recently used blocks beyond the bounds. A block
// larger than the bounds themselves is not kept.
func (c *blockCache) put(h readHalf) {
	elements, nbytes := h.size.elements+1, h.size.bytes
	if elements > c.maxElements || nbytes > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[h.key]; ok {
		return // another computation decoded it meanwhile
	}
	c.entries[h.key] = c.recent.PushFront(&h)
	c.elements += elements
	c.nbytes += nbytes
	for c.elements > c.maxElements || c.nbytes > c.maxBytes {
		oldest := c.recent.Back()
		evicted := oldest.Value.(*readHalf)
		c.recent.Remove(oldest)
		delete(c.entries, evicted.key)
		c.elements -= evicted.size.elements + 1
		c.nbytes -= evicted.size.bytes
	}
}
