package values

import (
	"fmt"
	"sync"
	"testing"
)

func TestBlockCacheIsBoundedByElementsAndBytes(t *testing.T) {
	half := func(name string, elements, bytes int) readHalf {
		return readHalf{key: blockKey{source: Source{Name: name}}, size: blockSize{elements: elements, bytes: bytes}, block: &block{}}
	}
	tests := []struct {
		name string
		put  []readHalf
		kept []string
	}{
		{name: "blocks within both bounds are all kept", put: []readHalf{half("a", 3, 10), half("b", 3, 10)}, kept: []string{"a", "b"}},
		{name: "a block over the elements held evicts the least recently used", put: []readHalf{half("a", 5, 10), half("b", 5, 10), half("c", 5, 10)}, kept: []string{"b", "c"}},
		{name: "a block over the bytes held evicts the least recently used", put: []readHalf{half("a", 1, 60), half("b", 1, 60)}, kept: []string{"b"}},
		{name: "thirteen empty blocks count an element each, one too many", put: []readHalf{half("a", 0, 2), half("b", 0, 2), half("c", 0, 2), half("d", 0, 2), half("e", 0, 2), half("f", 0, 2), half("g", 0, 2), half("h", 0, 2), half("i", 0, 2), half("j", 0, 2), half("k", 0, 2), half("l", 0, 2), half("m", 0, 2)}, kept: []string{"b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"}},
		{name: "a block larger than the bounds is not kept, nor evicts anything", put: []readHalf{half("a", 1, 10), half("huge", 100, 10)}, kept: []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := newBlockCache(12, 100)
			for _, h := range tt.put {
				cache.put(h)
			}
			var kept []string
			for _, h := range tt.put {
				if _, ok := cache.get(h.key); ok {
					kept = append(kept, h.key.source.Name)
				}
			}
			if fmt.Sprint(kept) != fmt.Sprint(tt.kept) {
				t.Errorf("kept %v, want %v", kept, tt.kept)
			}
			if cache.elements > 12 || cache.nbytes > 100 || len(cache.entries) != cache.recent.Len() {
				t.Errorf("%d elements, %d bytes, %d entries, %d in the recency list", cache.elements, cache.nbytes, len(cache.entries), cache.recent.Len())
			}
		})
	}
}

func TestBlockCacheUnderConcurrentUse(t *testing.T) {
	cache := newBlockCache(50, 1000)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				key := blockKey{source: Source{Name: fmt.Sprint((g + i) % 40)}}
				if _, ok := cache.get(key); !ok {
					cache.put(readHalf{key: key, size: blockSize{elements: 4, bytes: 20}, block: &block{}})
				}
			}
		})
	}
	wg.Wait()
	if cache.elements > 50 || len(cache.entries) != cache.recent.Len() || cache.elements != 5*len(cache.entries) {
		t.Errorf("%d elements for %d entries, %d in the recency list, bound 50", cache.elements, len(cache.entries), cache.recent.Len())
	}
}
