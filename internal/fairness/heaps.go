package fairness

// readyHeap orders a group's ready items: higher priority first, then arrival.
type readyHeap[T comparable] []*entry[T]

func (h readyHeap[T]) before(a, b *entry[T]) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	return a.arrival < b.arrival
}

func (h readyHeap[T]) Len() int           { return len(h) }
func (h readyHeap[T]) Less(i, j int) bool { return h.before(h[i], h[j]) }
func (h readyHeap[T]) Swap(i, j int)      { swap(h, i, j) }
func (h *readyHeap[T]) Push(x any)        { *h = push(*h, x) }
func (h *readyHeap[T]) Pop() any          { return pop((*[]*entry[T])(h)) }

// waitingHeap orders the items that wait for their time: earliest first.
type waitingHeap[T comparable] []*entry[T]

func (h waitingHeap[T]) Len() int           { return len(h) }
func (h waitingHeap[T]) Less(i, j int) bool { return h[i].readyAt.Before(h[j].readyAt) }
func (h waitingHeap[T]) Swap(i, j int)      { swap(h, i, j) }
func (h *waitingHeap[T]) Push(x any)        { *h = push(*h, x) }
func (h *waitingHeap[T]) Pop() any          { return pop((*[]*entry[T])(h)) }

func swap[T comparable](h []*entry[T], i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func push[T comparable](h []*entry[T], x any) []*entry[T] {
	e := x.(*entry[T])
	e.index = len(h)
	return append(h, e)
}

func pop[T comparable](h *[]*entry[T]) any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.index = -1
	return e
}
