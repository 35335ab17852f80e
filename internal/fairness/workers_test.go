package fairness

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"testing/synctest"
)

// The queue with real workers: each test runs in a synctest bubble, where
// synctest.Wait returns once every worker is blocked, in Get or in its run, so what
// the workers took is known without waiting on the clock.

// run is an item a worker took; closing end ends its run.
type run struct {
	item string
	end  chan struct{}
}

// startWorkers starts n workers that each report on the returned channel what they take,
// and call Done when its run is ended.
func startWorkers(q *Queue[string], n int) <-chan run {
	started := make(chan run)
	for range n {
		go func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				r := run{item: item, end: make(chan struct{})}
				started <- r
				<-r.end
				q.Done(item)
			}
		}()
	}
	return started
}

// newRuns waits until every worker is blocked, then returns the runs started meanwhile.
func newRuns(started <-chan run) map[string]run {
	synctest.Wait()
	runs := map[string]run{}
	for {
		select {
		case r := <-started:
			runs[r.item] = r
		default:
			return runs
		}
	}
}

func items(runs map[string]run) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for item := range runs {
			if !yield(item) {
				return
			}
		}
	})
}

func TestWorkers(t *testing.T) {
	t.Run("a namespace alone keeps every worker busy, and a newcomer takes the first one freed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := New(Options[string]{Workers: 3, Group: namespaceOf})
			for i := range 6 {
				q.Add(fmt.Sprintf("a/%d", i+1))
			}
			started := startWorkers(q, 3)
			runs := newRuns(started)
			if got := items(runs); !slices.Equal(got, []string{"a/1", "a/2", "a/3"}) {
				t.Fatalf("the workers took %v, want a/1, a/2 and a/3", got)
			}
			if q.Len() != 3 {
				t.Errorf("Len = %d with a/4 to a/6 ready, want 3", q.Len())
			}

			q.Add("b/1")
			if got := items(newRuns(started)); len(got) > 0 {
				t.Fatalf("started %v with every worker busy", got)
			}
			close(runs["a/2"].end)
			freed := newRuns(started)
			if got := items(freed); !slices.Equal(got, []string{"b/1"}) {
				t.Fatalf("the first worker freed took %v, want the newcomer's b/1", got)
			}
			maps.Copy(runs, freed)
			close(runs["a/1"].end)
			freed = newRuns(started)
			if got := items(freed); !slices.Equal(got, []string{"a/4"}) {
				t.Fatalf("the next worker freed took %v, want a/4", got)
			}
			maps.Copy(runs, freed)

			drained := make(chan struct{})
			go func() {
				q.ShutDownWithDrain()
				close(drained)
			}()
			synctest.Wait()
			select {
			case <-drained:
				t.Fatal("ShutDownWithDrain returned while runs were going")
			default:
			}
			for _, item := range []string{"a/3", "a/4", "b/1"} {
				close(runs[item].end)
			}
			if got := items(newRuns(started)); len(got) > 0 {
				t.Errorf("started %v after ShutDown", got)
			}
			<-drained
		})
	})
	t.Run("a worker held back by the bound on expensive items is woken when an expensive run ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q, clock := newTestQueue(t, 2)
			runExpensive(t, q, clock, "a/1")
			runExpensive(t, q, clock, "b/1")
			q.Add("a/1")
			q.Add("b/1")
			// The test is the worker that runs a/1, so that only a worker waiting in Get
			// can take b/1.
			if got := tryGet(q); got != "a/1" {
				t.Fatalf("handed out %q, want a/1", got)
			}
			started := startWorkers(q, 1)
			if got := items(newRuns(started)); len(got) > 0 {
				t.Fatalf("the worker took %v while a/1 held the one expensive share", got)
			}
			q.Done("a/1")
			runs := newRuns(started)
			if got := items(runs); !slices.Equal(got, []string{"b/1"}) {
				t.Fatalf("after a/1 ended, the waiting worker took %v, want b/1", got)
			}
			q.ShutDown()
			close(runs["b/1"].end)
		})
	})
}
