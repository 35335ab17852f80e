package fairness

import "container/heap"

// groupOrder keeps the groups that have an item it counts in the order servedBefore
// gives, so that a hand-out takes the first group rather than looking at every one. A
// queue keeps two: one counts every ready item, one only the cheap items, for while the
// expensive items hold their share of the workers.
type groupOrder[T comparable] struct {
	groups []*group[T]
	// costly tells whether a group's expensive items count (group.head).
	costly bool
	// slot is which of a group's places (group.at) is its place in this order.
	slot int
}

func (o groupOrder[T]) Len() int { return len(o.groups) }

func (o groupOrder[T]) Less(i, j int) bool {
	a, b := o.groups[i], o.groups[j]
	ea, _ := a.head(o.costly)
	eb, _ := b.head(o.costly)
	return servedBefore(a, ea, b, eb)
}

func (o groupOrder[T]) Swap(i, j int) {
	o.groups[i], o.groups[j] = o.groups[j], o.groups[i]
	o.groups[i].at[o.slot], o.groups[j].at[o.slot] = i, j
}

func (o *groupOrder[T]) Push(x any) {
	g := x.(*group[T])
	g.at[o.slot] = len(o.groups)
	o.groups = append(o.groups, g)
}

func (o *groupOrder[T]) Pop() any {
	old := o.groups
	g := old[len(old)-1]
	old[len(old)-1] = nil
	o.groups = old[:len(old)-1]
	g.at[o.slot] = -1
	return g
}

// place puts g where its state now puts it: in its place while it has an item the order
// counts, out of the order otherwise.
func (o *groupOrder[T]) place(g *group[T]) {
	head, _ := g.head(o.costly)
	switch at := g.at[o.slot]; {
	case head != nil && at >= 0:
		heap.Fix(o, at)
	case head != nil:
		heap.Push(o, g)
	case at >= 0:
		heap.Remove(o, at)
	}
}

// first is the group whose item goes next, or nil when it counts none.
func (o *groupOrder[T]) first() *group[T] {
	if len(o.groups) == 0 {
		return nil
	}
	return o.groups[0]
}
