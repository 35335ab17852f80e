package fairness

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// Items are "namespace/name"; their group is the namespace.
func namespaceOf(item string) string { return strings.SplitN(item, "/", 2)[0] }

func newTestQueue(t *testing.T, workers int) (*Queue[string], *testingclock.FakeClock) {
	t.Helper()
	clock := testingclock.NewFakeClock(time.Now())
	q := New(Options[string]{Workers: workers, Group: namespaceOf, Clock: clock,
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)})
	t.Cleanup(q.ShutDown)
	return q, clock
}

// tryGet hands out what Get would, or "" where Get would wait.
func tryGet(q *Queue[string]) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e := q.next(); e != nil {
		return e.item
	}
	return ""
}

// getSoon is Get for an item that is about to become ready; it fails the test if none
// comes in a generous while.
func getSoon(t *testing.T, q *Queue[string]) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		item, _ := q.Get()
		got <- item
	}()
	select {
	case item := <-got:
		return item
	case <-time.After(10 * time.Second):
		t.Fatal("no item became ready")
		return ""
	}
}

// runExpensive hands out item and has its run take ExpensiveRun.
func runExpensive(t *testing.T, q *Queue[string], clock *testingclock.FakeClock, item string) {
	t.Helper()
	q.Add(item)
	if got := tryGet(q); got != item {
		t.Fatalf("handed out %q, want %q", got, item)
	}
	clock.Step(ExpensiveRun)
	q.Done(item)
}

func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		// workers each ask for an item once, or, when oneByOne, in turn until none is left,
		// each run ending before the next item is asked for.
		workers  int
		oneByOne bool
		adds     []string
		// high are added again with a higher priority after adds.
		high []string
		want []string
	}{
		{
			name: "a busy namespace and a newcomer take turns on one worker", workers: 1, oneByOne: true,
			adds: []string{"a/1", "a/2", "a/3", "b/1"},
			want: []string{"a/1", "b/1", "a/2", "a/3"},
		},
		{
			name: "the namespace with the fewest reconciles in flight goes first", workers: 8,
			adds: []string{"a/1", "a/2", "a/3", "b/1", "b/2", "c/1"},
			want: []string{"a/1", "b/1", "c/1", "a/2", "b/2", "a/3"},
		},
		{
			name: "one namespace alone holds every worker", workers: 4,
			adds: []string{"a/1", "a/2", "a/3", "a/4", "a/5"},
			want: []string{"a/1", "a/2", "a/3", "a/4"},
		},
		{
			name: "two busy namespaces split the workers evenly", workers: 4,
			adds: []string{"a/1", "a/2", "a/3", "a/4", "b/1", "b/2", "b/3", "b/4"},
			want: []string{"a/1", "b/1", "a/2", "b/2"},
		},
		{
			name: "higher priority goes first within a namespace", workers: 8,
			adds: []string{"a/1", "a/2", "a/3"}, high: []string{"a/3"},
			want: []string{"a/3", "a/1", "a/2"},
		},
		{
			name: "an item added twice is handed out once", workers: 8,
			adds: []string{"a/1", "a/1", "a/2"},
			want: []string{"a/1", "a/2"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := newTestQueue(t, tc.workers)
			for _, item := range tc.adds {
				q.Add(item)
			}
			q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(10)}, tc.high...)
			var got []string
			for asks := 0; tc.oneByOne || asks < tc.workers; asks++ {
				item := tryGet(q)
				if item == "" {
					break
				}
				got = append(got, item)
				if tc.oneByOne {
					q.Done(item)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("handed out %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTurns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
		adds    []string
		// steps end a run, or add an item when prefixed with "+"; each ended run frees a
		// worker that asks for the next item.
		steps []string
		want  []string
	}{
		{
			name: "the namespace with fewer reconciles in flight goes first, though served last", workers: 2,
			adds:  []string{"a/1", "a/2", "b/1", "b/2"},
			steps: []string{"b/1"},
			want:  []string{"b/2"},
		},
		{
			name: "a newcomer takes the first worker freed, before the busy namespace's backlog", workers: 3,
			adds:  []string{"a/1", "a/2", "a/3", "a/4", "a/5"},
			steps: []string{"+b/1", "a/2", "a/1"},
			want:  []string{"b/1", "a/4"},
		},
		{
			name: "a namespace that held every worker gives a newcomer with a backlog half of them as its runs end", workers: 4,
			adds:  []string{"a/1", "a/2", "a/3", "a/4", "a/5", "a/6", "a/7"},
			steps: []string{"+b/1", "+b/2", "+b/3", "a/1", "a/2", "a/3", "a/4"},
			want:  []string{"b/1", "b/2", "a/5", "a/6"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := newTestQueue(t, tc.workers)
			for _, item := range tc.adds {
				q.Add(item)
			}
			for range tc.workers {
				tryGet(q)
			}
			var got []string
			for _, step := range tc.steps {
				if added, ok := strings.CutPrefix(step, "+"); ok {
					q.Add(added)
					continue
				}
				q.Done(step)
				got = append(got, tryGet(q))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("freed workers got %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("a namespace that went idle between two items takes its turn after those that waited", func(t *testing.T) {
		q, _ := newTestQueue(t, 1)
		for _, item := range []string{"a/1", "b/1", "b/2", "c/1"} {
			q.Add(item)
		}
		var got []string
		for item := tryGet(q); item != ""; item = tryGet(q) {
			got = append(got, item)
			q.Done(item)
			if item == "a/1" {
				q.Add("a/2")
			}
		}
		if want := []string{"a/1", "b/1", "c/1", "a/2", "b/2"}; !slices.Equal(got, want) {
			t.Errorf("handed out %v, want %v", got, want)
		}
	})
}

func TestExpensiveItems(t *testing.T) {
	t.Run("expensive items hold at most half the workers, and cheap ones have the rest", func(t *testing.T) {
		q, clock := newTestQueue(t, 4)
		for _, item := range []string{"a/1", "b/1", "c/1"} {
			runExpensive(t, q, clock, item)
		}
		for _, item := range []string{"a/1", "b/1", "c/1", "d/1", "d/2"} {
			q.Add(item)
		}
		var got []string
		for item := tryGet(q); item != ""; item = tryGet(q) {
			got = append(got, item)
		}
		if want := []string{"a/1", "b/1", "d/1", "d/2"}; !slices.Equal(got, want) {
			t.Errorf("handed out %v, want %v", got, want)
		}
		q.Done("a/1")
		if got := tryGet(q); got != "c/1" {
			t.Errorf("after an expensive run ended, handed out %q, want c/1", got)
		}
	})
	t.Run("a cheap item is not held back by an expensive one queued before it", func(t *testing.T) {
		q, clock := newTestQueue(t, 2)
		runExpensive(t, q, clock, "a/1")
		runExpensive(t, q, clock, "b/1")
		q.Add("b/1")
		if got := tryGet(q); got != "b/1" {
			t.Fatalf("handed out %q, want b/1", got)
		}
		q.Add("a/1")
		q.Add("a/2")
		if got := tryGet(q); got != "a/2" {
			t.Errorf("handed out %q, want the cheap a/2 while b/1 holds the expensive share", got)
		}
	})
	t.Run("an item whose run was cheap again is cheap again", func(t *testing.T) {
		q, clock := newTestQueue(t, 2)
		runExpensive(t, q, clock, "a/1")
		q.Add("a/1")
		tryGet(q)
		q.Done("a/1")
		runExpensive(t, q, clock, "b/1")
		q.Add("b/1")
		q.Add("a/1")
		if got := []string{tryGet(q), tryGet(q)}; !slices.Equal(got, []string{"a/1", "b/1"}) {
			t.Errorf("handed out %v, want both: a/1 is cheap again", got)
		}
	})
}

// The queue is what controller-runtime's controllers ask for.
var _ priorityqueue.PriorityQueue[string] = &Queue[string]{}

// BenchmarkHandOut hands out and ends one item at a time with a thousand namespaces
// waiting: the cost of choosing among them.
func BenchmarkHandOut(b *testing.B) { benchmarkHandOut(b, 1000) }

// BenchmarkHandOutAmong5000Namespaces is BenchmarkHandOut at the largest fleet the
// controller is measured at: a hand-out costs about what it does among a thousand.
func BenchmarkHandOutAmong5000Namespaces(b *testing.B) { benchmarkHandOut(b, 5000) }

func benchmarkHandOut(b *testing.B, namespaces int) {
	q := New(Options[string]{Workers: 16, Group: namespaceOf})
	defer q.ShutDown()
	for i := range namespaces {
		q.Add(fmt.Sprintf("ns-%d/a", i))
		q.Add(fmt.Sprintf("ns-%d/b", i))
	}
	for b.Loop() {
		item, _ := q.Get()
		q.Done(item)
		q.Add(item)
	}
}
