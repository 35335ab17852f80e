package values

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
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
				if _, _, err := cond.holds(context.Background(), map[string]any{"a": int64(1)}); err != nil {
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

// nestedZeros returns [[0, 0, ...]] with n zeros: n+1 elements under a key.
func nestedZeros(n int) []any {
	zeros := make([]any, n)
	for i := range zeros {
		zeros[i] = int64(0)
	}
	return []any{zeros}
}

func TestConditionsAreChargedByWhatTheyWalk(t *testing.T) {
	lists := map[string]any{"a": nestedZeros(9998), "b": nestedZeros(9998), "small": []any{int64(1), "x"}, "s": strings.Repeat("s", 100_000)}
	tests := []struct {
		name    string
		when    string
		want    string // the error; "" for none
		maxCost uint64
	}{
		{name: "two lists of 10,000 nested items compared once are charged past the bound", when: "self.a == self.b",
			want: "operation cancelled: actual cost limit exceeded", maxCost: 2*MaxWhenCost + 10},
		{name: "finding 1: comparing them in a loop over 9,998 items stops at the first comparison", when: "self.a[0].all(i, self.a == self.b)",
			want: "operation cancelled: actual cost limit exceeded", maxCost: 2*MaxWhenCost + 10},
		{name: "!= is charged the same", when: "self.a != self.b",
			want: "operation cancelled: actual cost limit exceeded", maxCost: 2*MaxWhenCost + 10},
		{name: "in walks every item of the list", when: "self.a in [self.small, self.b]",
			want: "operation cancelled: actual cost limit exceeded", maxCost: 2*MaxWhenCost + 10},
		{name: "small lists compare as before", when: "self.small == [1, 'x'] && 'x' in self.small", maxCost: 20},
		{name: "scalars compare as before", when: "self.a[0][0] == 0 && self.a[0][1] != 1", maxCost: 20},
		{name: "joining large strings in a loop is charged by what it copies", when: "self.a[0].all(i, (self.s + self.s).size() > 0)",
			want: "operation cancelled: actual cost limit exceeded", maxCost: 2*MaxWhenCost + 10},
		{name: "joining short strings costs as before", when: "self.small[1] + 'y' == 'xy'", maxCost: 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cond, err := conditions().compile(tt.when)
			if err != nil {
				t.Fatal(err)
			}
			_, cost, err := cond.holds(context.Background(), lists)
			if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if cost > tt.maxCost {
				t.Errorf("cost %d units, want at most %d", cost, tt.maxCost)
			}
		})
	}
}

func TestAConditionIsInterruptedAtItsDeadline(t *testing.T) {
	items := make([]any, 1000)
	for i := range items {
		items[i] = int64(i)
	}
	cond, err := conditions().compile("self.items.all(x, x >= 0)")
	if err != nil {
		t.Fatal(err)
	}
	past, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	_, cost, err := cond.holds(past, map[string]any{"items": items})
	if err == nil || err.Error() != "operation interrupted: context deadline exceeded" {
		t.Errorf("error %v, want the deadline", err)
	}
	if cost > 5*interruptCheckFrequency+10 {
		t.Errorf("cost %d: the loop went on past the deadline", cost)
	}

	budget := conditionBudget{ctx: past, cost: MaxConditionsCost}
	if _, err := budget.evaluate(cond, map[string]any{"items": items}, "team-a"); err == nil || err.Error() != "not evaluated: the conditions of these values used up their 1s together" {
		t.Errorf("error %v, want the computation's deadline", err)
	}
}

// TestShippedConditionsStillEvaluate evaluates the conditions of docs/policies.md and of
// the testdata of the commands on the values they are written for.
func TestShippedConditionsStillEvaluate(t *testing.T) {
	self := map[string]any{"limits": map[string]any{"a": map[string]any{"limit": int64(500)}, "rps": int64(50)}, "maintenance": "on", "replicas": int64(2)}
	for when, want := range map[string]bool{
		"self.limits.a.limit > 100":                     true,
		"self.?limits.?a.?limit.orValue(0) > 100":       true,
		"self.limits.rps > 100":                         false,
		"self.maintenance == 'on'":                      true,
		"!has(self.replicas)":                           false,
		"size(self) < 100":                              true,
		"self.all(k, k != 'x')":                         true,
		"self.limits.map(k, k) == ['a', 'rps']":         true,
		"has(self.limits) && self.limits.a.limit > 100": true,
	} {
		cond, err := conditions().compile(when)
		if err != nil {
			t.Fatal(err)
		}
		holds, cost, err := cond.holds(context.Background(), self)
		if err != nil || holds != want || cost > 100 {
			t.Errorf("%s: holds %v, cost %d, error %v; want %v", when, holds, cost, err, want)
		}
	}
}
