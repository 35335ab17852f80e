// Package fairness is a work queue for controller-runtime that shares a controller's
// workers between groups of items (namespaces) so that no group can starve another,
// without polling and without leaving a worker idle while work it may take waits.
//
// The rules, applied each time a worker asks for an item:
//   - the group with the fewest items in flight goes first; among equals, the one served
//     least recently (round-robin); within a group, higher priority first, then arrival;
//   - no worker is kept in reserve: a group alone gets every worker, and busy groups end
//     up with equal shares. The price is that a group whose work arrives while every
//     worker is busy waits for the first run to end; it then goes before the backlogs of
//     the busy groups, which have more in flight. Its wait is one run, which the caller
//     bounds (a controller's reconcile timeout);
//   - items whose last run took ExpensiveRun or longer may hold at most half the workers
//     together, so that cheap work always has the other half, however many groups the
//     expensive work is spread over.
//
// It keeps the workqueue's contract: an item is never handed out twice at once (one added
// again while in flight waits for its Done), adds are deduplicated, the earliest of
// several delays wins, and the highest of several priorities.
package fairness

import (
	"container/heap"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// ExpensiveRun is how long a run must take for its item to count as expensive until its
// next run. Reconciles that the API server keeps up with take milliseconds to a few
// hundred; a second is a render near its time limit, or a judgement over thousands of
// objects.
const ExpensiveRun = time.Second

// Options configure a Queue.
type Options[T comparable] struct {
	// Workers is how many items the controller processes at once.
	Workers int
	// Group names the group an item's share is counted in, e.g. its namespace.
	Group func(T) string
	// RateLimiter delays AddRateLimited; controller-runtime passes its own.
	RateLimiter workqueue.TypedRateLimiter[T]
	// Clock tells the time; tests replace it.
	Clock clock.Clock
	// Depth, when set, follows how many items are ready and not in flight.
	Depth workqueue.GaugeMetric
}

// Queue is a fair work queue; it implements controller-runtime's PriorityQueue.
type Queue[T comparable] struct {
	workers int
	groupOf func(T) string
	limiter workqueue.TypedRateLimiter[T]
	clock   clock.Clock
	depth   workqueue.GaugeMetric

	mu sync.Mutex
	// changed wakes the workers waiting in Get when an item becomes ready, an expensive
	// share is freed, or the queue shuts down, and ShutDownWithDrain when the last run
	// ends.
	changed *sync.Cond
	entries map[T]*entry[T]
	groups  map[string]*group[T]
	// order holds the groups with ready items in the order they are served: [0]
	// counting their cheap items only, [1] all of them.
	order [2]groupOrder[T]
	// expensive holds the items whose last run took ExpensiveRun or longer.
	expensive         map[T]bool
	expensiveInFlight int
	inFlight          int
	waiting           waitingHeap[T]
	// arrivals and serves number the items made ready and the items handed out.
	arrivals, serves uint64
	shuttingDown     bool
	// wake tells the timer of the waiting items that the earliest may have changed.
	wake    chan struct{}
	stopped chan struct{}
}

// pending is what an entry waits for.
type pending int

const (
	notPending pending = iota
	waitingForTime
	ready
)

// entry is an item the queue knows: pending, in flight, or both (added again while in
// flight).
type entry[T comparable] struct {
	item     T
	group    string
	priority int
	pending  pending
	readyAt  time.Time
	arrival  uint64
	inFlight bool
	// costly is whether the item was handed out as expensive: its Done gives that share back.
	costly  bool
	started time.Time
	// index is the entry's place in the waiting heap or its group's ready heap.
	index int
}

// New returns a started Queue; ShutDown stops it.
func New[T comparable](o Options[T]) *Queue[T] {
	if o.RateLimiter == nil {
		o.RateLimiter = workqueue.DefaultTypedControllerRateLimiter[T]()
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Depth == nil {
		o.Depth = noDepth{}
	}
	q := &Queue[T]{
		workers:   max(1, o.Workers),
		groupOf:   o.Group,
		limiter:   o.RateLimiter,
		clock:     o.Clock,
		depth:     o.Depth,
		entries:   map[T]*entry[T]{},
		groups:    map[string]*group[T]{},
		expensive: map[T]bool{},
		order:     [2]groupOrder[T]{{costly: false, slot: 0}, {costly: true, slot: 1}},
		wake:      make(chan struct{}, 1),
		stopped:   make(chan struct{}),
	}
	q.changed = sync.NewCond(&q.mu)
	go q.releaseWaiting()
	return q
}

// Add makes item ready now.
func (q *Queue[T]) Add(item T) { q.AddWithOpts(priorityqueue.AddOpts{}, item) }

// AddAfter makes item ready after delay, or sooner if it is added sooner.
func (q *Queue[T]) AddAfter(item T, delay time.Duration) {
	q.AddWithOpts(priorityqueue.AddOpts{After: delay}, item)
}

// AddRateLimited makes item ready after its rate limiter's delay.
func (q *Queue[T]) AddRateLimited(item T) {
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, item)
}

// AddWithOpts adds items with a delay, a rate limit and a priority. As in
// controller-runtime's priority queue, the shorter of After and the rate limiter's delay
// applies.
func (q *Queue[T]) AddWithOpts(o priorityqueue.AddOpts, items ...T) {
	for _, item := range items {
		after := o.After
		if o.RateLimited {
			if limited := q.limiter.When(item); after == 0 || limited < after {
				after = limited
			}
		}
		q.add(item, ptr.Deref(o.Priority, 0), after)
	}
}

func (q *Queue[T]) add(item T, priority int, after time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	e := q.entries[item]
	if e == nil {
		e = &entry[T]{item: item, group: q.groupOf(item), index: -1}
		q.entries[item] = e
	}
	if e.pending == notPending || priority > e.priority {
		e.priority = priority
		if e.pending == ready && !e.inFlight {
			g := q.groups[e.group]
			g.reorder(e)
			q.reposition(g)
		}
	}
	readyAt := q.clock.Now().Add(after)
	switch {
	case after <= 0:
		q.makeReady(e)
	case e.pending == notPending:
		e.pending, e.readyAt = waitingForTime, readyAt
		heap.Push(&q.waiting, e)
		q.wakeTimer()
	case e.pending == waitingForTime && readyAt.Before(e.readyAt):
		e.readyAt = readyAt
		heap.Fix(&q.waiting, e.index)
		q.wakeTimer()
	}
}

// makeReady queues e in its group, or, while it is in flight, for when it is done.
func (q *Queue[T]) makeReady(e *entry[T]) {
	switch e.pending {
	case ready:
		return
	case waitingForTime:
		heap.Remove(&q.waiting, e.index)
	}
	q.arrivals++
	e.pending, e.arrival = ready, q.arrivals
	if !e.inFlight {
		q.enqueue(e)
	}
}

// enqueue puts a ready entry in its group's heap.
func (q *Queue[T]) enqueue(e *entry[T]) {
	g := q.groups[e.group]
	if g == nil {
		// A group that comes back counts as just served: going idle between two items
		// does not move it ahead of the groups that kept waiting.
		g = newGroup[T](e.group, q.serves)
		q.groups[e.group] = g
	}
	g.push(e, q.expensive[e.item])
	q.reposition(g)
	q.depth.Inc()
	q.changed.Signal()
}

// Get hands out the next item, waiting until there is one this worker may take.
func (q *Queue[T]) Get() (T, bool) {
	item, _, shutdown := q.GetWithPriority()
	return item, shutdown
}

// GetWithPriority is Get that also tells the item's priority.
func (q *Queue[T]) GetWithPriority() (T, int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.shuttingDown {
			var none T
			return none, 0, true
		}
		if e := q.next(); e != nil {
			return e.item, e.priority, false
		}
		q.changed.Wait()
	}
}

// Done tells that item's processing ended. If it was added again meanwhile, it is queued.
func (q *Queue[T]) Done(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.entries[item]
	if e == nil || !e.inFlight {
		return
	}
	e.inFlight = false
	q.inFlight--
	if e.costly {
		q.expensiveInFlight--
	}
	if q.clock.Since(e.started) >= ExpensiveRun {
		q.expensive[item] = true
	} else {
		delete(q.expensive, item)
	}
	g := q.groups[e.group]
	g.inFlight--
	switch e.pending {
	case ready:
		q.enqueue(e)
	case notPending:
		delete(q.entries, item)
	}
	q.reposition(g)
	if g.idle() {
		delete(q.groups, g.name)
	}
	switch {
	case q.shuttingDown && q.inFlight == 0:
		// ShutDownWithDrain waits for this.
		q.changed.Broadcast()
	case e.costly:
		// An expensive share came back: a worker held back by the bound may take one.
		q.changed.Signal()
	}
}

// Forget ends the rate limiter's memory of item's failures.
func (q *Queue[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues is how many times item was rate limited since it was last forgotten.
func (q *Queue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

// Len is how many items are ready and not in flight.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, g := range q.groups {
		n += g.ready()
	}
	return n
}

// ShutDown makes Get return at once with shutdown true, and drops later adds.
func (q *Queue[T]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.shuttingDown {
		q.shuttingDown = true
		close(q.stopped)
	}
	q.changed.Broadcast()
}

// ShutDownWithDrain shuts down, then waits until the items in flight are done.
func (q *Queue[T]) ShutDownWithDrain() {
	q.ShutDown()
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.inFlight > 0 {
		q.changed.Wait()
	}
}

// ShuttingDown tells whether ShutDown was called.
func (q *Queue[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// noDepth is the Depth of a queue whose depth nobody follows.
type noDepth struct{}

func (noDepth) Inc()        {}
func (noDepth) Dec()        {}
func (noDepth) Set(float64) {}
