package fairness

import "container/heap"

// group is one group's ready items and how many of its items are in flight.
type group[T comparable] struct {
	name string
	// cheap and costly hold the ready items, apart so that the bound on expensive
	// items never holds back a cheap item queued behind them.
	cheap, costly readyHeap[T]
	inFlight      int
	// lastServed is the serve number of the group's latest item handed out.
	lastServed uint64
	// at is the group's place in each of the queue's orders (Queue.order), -1 when it
	// is not in one.
	at [2]int
}

func newGroup[T comparable](name string, lastServed uint64) *group[T] {
	return &group[T]{name: name, lastServed: lastServed, at: [2]int{-1, -1}}
}

func (g *group[T]) push(e *entry[T], expensive bool) {
	if expensive {
		heap.Push(&g.costly, e)
	} else {
		heap.Push(&g.cheap, e)
	}
}

// reorder puts a queued entry whose priority rose in its place.
func (g *group[T]) reorder(e *entry[T]) {
	for _, h := range []*readyHeap[T]{&g.cheap, &g.costly} {
		if e.index < len(*h) && (*h)[e.index] == e {
			heap.Fix(h, e.index)
			return
		}
	}
}

func (g *group[T]) ready() int { return len(g.cheap) + len(g.costly) }

func (g *group[T]) idle() bool { return g.inFlight == 0 && g.ready() == 0 }

// head is the group's next item, and which heap it is in; costly items only when
// costlyAllowed.
func (g *group[T]) head(costlyAllowed bool) (*entry[T], *readyHeap[T]) {
	var best *entry[T]
	var from *readyHeap[T]
	if len(g.cheap) > 0 {
		best, from = g.cheap[0], &g.cheap
	}
	if costlyAllowed && len(g.costly) > 0 && (best == nil || g.costly.before(g.costly[0], best)) {
		best, from = g.costly[0], &g.costly
	}
	return best, from
}

// maxExpensive is how many workers the expensive items may hold together.
func (q *Queue[T]) maxExpensive() int { return max(1, q.workers/2) }

// next hands out the item that the rules of the package comment choose, or nil when no
// item may be taken now: the first group of the order that counts the items it may
// take, whose place follows every change of a group (Queue.reposition).
func (q *Queue[T]) next() *entry[T] {
	costlyAllowed := q.expensiveInFlight < q.maxExpensive()
	order := &q.order[0]
	if costlyAllowed {
		order = &q.order[1]
	}
	chosen := order.first()
	if chosen == nil {
		return nil
	}
	head, from := chosen.head(costlyAllowed)
	heap.Pop(from)
	q.depth.Dec()
	head.pending, head.inFlight, head.started = notPending, true, q.clock.Now()
	head.costly = from == &chosen.costly
	if head.costly {
		q.expensiveInFlight++
	}
	q.inFlight++
	chosen.inFlight++
	q.serves++
	chosen.lastServed = q.serves
	q.reposition(chosen)
	return head
}

// reposition puts g in its place in both orders after a change of its items, its items
// in flight or its turn.
func (q *Queue[T]) reposition(g *group[T]) {
	q.order[0].place(g)
	q.order[1].place(g)
}

// servedBefore tells whether group a, whose next item is ea, goes before group b, whose
// next item is eb: fewer in flight, then the higher priority, then the group served
// least recently, then by name so that the order never depends on a map's.
func servedBefore[T comparable](a *group[T], ea *entry[T], b *group[T], eb *entry[T]) bool {
	if a.inFlight != b.inFlight {
		return a.inFlight < b.inFlight
	}
	if ea.priority != eb.priority {
		return ea.priority > eb.priority
	}
	if a.lastServed != b.lastServed {
		return a.lastServed < b.lastServed
	}
	return a.name < b.name
}
