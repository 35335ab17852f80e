package fairness

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The workqueue's contract, which controller-runtime relies on.

func TestAddedWhileInFlight(t *testing.T) {
	q, _ := newTestQueue(t, 4)
	q.Add("a/1")
	tryGet(q)
	q.Add("a/1")
	if got := tryGet(q); got != "" {
		t.Fatalf("handed out %q while a/1 was in flight", got)
	}
	if q.Len() != 0 {
		t.Errorf("Len = %d while the only item is in flight, want 0", q.Len())
	}
	q.Done("a/1")
	if got := tryGet(q); got != "a/1" {
		t.Errorf("after Done, handed out %q, want a/1 again", got)
	}
	q.Done("a/1")
	if got := tryGet(q); got != "" {
		t.Errorf("handed out %q, but a/1 was added once more, not twice", got)
	}
}

func TestLen(t *testing.T) {
	q, _ := newTestQueue(t, 2)
	for _, item := range []string{"a/1", "a/2", "a/3", "b/1"} {
		q.Add(item)
	}
	for _, want := range []int{3, 2} {
		tryGet(q)
		if q.Len() != want {
			t.Fatalf("Len = %d after a hand-out, want %d: the items ready and not in flight", q.Len(), want)
		}
	}
	q.Add("a/1")
	if q.Len() != 2 {
		t.Errorf("Len = %d after an add of a/1 in flight, want 2: it waits for its Done", q.Len())
	}
	q.Done("a/1")
	if q.Len() != 3 {
		t.Errorf("Len = %d after a/1's Done queued it again, want 3", q.Len())
	}
}

func TestNoItemHandedOutTwiceAtOnce(t *testing.T) {
	q := New(Options[string]{Workers: 8, Group: namespaceOf})
	inFlight, ran := map[string]*atomic.Int32{}, map[string]*atomic.Int32{}
	var items []string
	for i := range 20 {
		item := fmt.Sprintf("ns-%d/item-%d", i%5, i)
		inFlight[item], ran[item] = &atomic.Int32{}, &atomic.Int32{}
		items = append(items, item)
	}
	var twice atomic.Int32
	var workers sync.WaitGroup
	for range 8 {
		workers.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				if inFlight[item].Add(1) > 1 {
					twice.Add(1)
				}
				ran[item].Add(1)
				inFlight[item].Add(-1)
				q.Done(item)
			}
		})
	}
	var adders sync.WaitGroup
	for range 4 {
		adders.Go(func() {
			for round := range 500 {
				q.Add(items[round%len(items)])
			}
		})
	}
	adders.Wait()
	for deadline := time.Now().Add(10 * time.Second); !allRan(ran); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("some items added were never handed out")
		}
	}
	q.ShutDownWithDrain()
	workers.Wait()
	if twice.Load() > 0 {
		t.Errorf("an item was handed out while in flight %d times", twice.Load())
	}
}

func allRan(ran map[string]*atomic.Int32) bool {
	for _, n := range ran {
		if n.Load() == 0 {
			return false
		}
	}
	return true
}

func TestDelayedAdds(t *testing.T) {
	t.Run("an item added after a delay is ready only then", func(t *testing.T) {
		q, clock := newTestQueue(t, 2)
		q.AddAfter("a/1", 10*time.Second)
		clock.Step(9 * time.Second)
		if got := tryGet(q); got != "" {
			t.Fatalf("handed out %q before its delay", got)
		}
		clock.Step(time.Second)
		if got := getSoon(t, q); got != "a/1" {
			t.Errorf("handed out %q, want a/1", got)
		}
	})
	t.Run("the earliest of two delays wins", func(t *testing.T) {
		q, clock := newTestQueue(t, 2)
		q.AddAfter("a/1", 10*time.Second)
		q.AddAfter("a/1", 5*time.Second)
		q.AddAfter("a/1", 20*time.Second)
		clock.Step(5 * time.Second)
		if got := getSoon(t, q); got != "a/1" {
			t.Errorf("handed out %q, want a/1", got)
		}
	})
	t.Run("an add without delay ends the wait", func(t *testing.T) {
		q, _ := newTestQueue(t, 2)
		q.AddAfter("a/1", time.Hour)
		q.Add("a/1")
		if got := tryGet(q); got != "a/1" {
			t.Errorf("handed out %q, want a/1", got)
		}
	})
	t.Run("rate-limited adds back off until forgotten", func(t *testing.T) {
		q, clock := newTestQueue(t, 2)
		q.AddRateLimited("a/1")
		q.AddRateLimited("a/1")
		if q.NumRequeues("a/1") != 2 {
			t.Errorf("NumRequeues = %d, want 2", q.NumRequeues("a/1"))
		}
		clock.Step(time.Second)
		if got := getSoon(t, q); got != "a/1" {
			t.Fatalf("handed out %q, want a/1 after the first backoff", got)
		}
		q.Done("a/1")
		q.AddRateLimited("a/1")
		clock.Step(3 * time.Second)
		if got := tryGet(q); got != "" {
			t.Fatalf("handed out %q before the third backoff of 4 s", got)
		}
		q.Forget("a/1")
		if q.NumRequeues("a/1") != 0 {
			t.Errorf("NumRequeues = %d after Forget, want 0", q.NumRequeues("a/1"))
		}
	})
}

func TestShutDown(t *testing.T) {
	q, _ := newTestQueue(t, 2)
	q.Add("a/1")
	tryGet(q)
	waiting := make(chan bool, 1)
	go func() {
		_, shutdown := q.Get()
		waiting <- shutdown
	}()
	drained := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(drained)
	}()
	select {
	case shutdown := <-waiting:
		if !shutdown {
			t.Fatal("a waiting Get returned an item, not shutdown")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiting Get did not return at shutdown")
	}
	select {
	case <-drained:
		t.Fatal("ShutDownWithDrain returned while a/1 was in flight")
	default:
	}
	q.Add("b/1")
	if q.Len() != 0 {
		t.Errorf("an add after shutdown was queued")
	}
	q.Done("a/1")
	select {
	case <-drained:
	case <-time.After(10 * time.Second):
		t.Fatal("ShutDownWithDrain did not return after the last item was done")
	}
	if !q.ShuttingDown() {
		t.Error("ShuttingDown is false after ShutDown")
	}
}

func TestDepth(t *testing.T) {
	var depth gauge
	q := New(Options[string]{Workers: 2, Group: namespaceOf, Depth: &depth})
	defer q.ShutDown()
	q.Add("a/1")
	q.Add("b/1")
	q.Add("b/1")
	if depth.value != 2 {
		t.Errorf("depth %v with two items ready, want 2", depth.value)
	}
	tryGet(q)
	if depth.value != 1 {
		t.Errorf("depth %v after one was handed out, want 1", depth.value)
	}
}

type gauge struct{ value float64 }

func (g *gauge) Inc()          { g.value++ }
func (g *gauge) Dec()          { g.value-- }
func (g *gauge) Set(v float64) { g.value = v }
