package values

import (
	"fmt"
	"sync"
	"testing"
)

func TestConditionCache(t *testing.T) {
	cache, err := newConditionCache(2)
	if err != nil {
		t.Fatal(err)
	}
	first, err := cache.compile("has(self.a)")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := cache.compile("has(self.a)"); again != first {
		t.Error("the same expression was compiled twice")
	}
	_, refused := cache.compile("self.a >")
	if _, again := cache.compile("self.a >"); again == nil || again.Error() != refused.Error() {
		t.Errorf("a refusal was not kept: %v", again)
	}
	if _, err := cache.compile("has(self.b)"); err != nil {
		t.Fatal(err)
	}
	if len(cache.entries) != 2 || cache.recent.Len() != 2 {
		t.Fatalf("%d entries, %d in the recency list; want the bound of 2", len(cache.entries), cache.recent.Len())
	}
	if _, kept := cache.entries["has(self.a)"]; kept {
		t.Error("the least recently used expression was kept")
	}
}

func TestConditionCacheUnderConcurrentUse(t *testing.T) {
	cache, err := newConditionCache(8)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				cond, err := cache.compile(fmt.Sprintf("size(self) > %d", (g+i)%12))
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := cond.holds(map[string]any{"a": int64(1)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(cache.entries) > 8 || len(cache.entries) != cache.recent.Len() {
		t.Errorf("%d entries, %d in the recency list, bound 8", len(cache.entries), cache.recent.Len())
	}
}
