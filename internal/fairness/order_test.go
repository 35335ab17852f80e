package fairness

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// scanFirst is the rule the orders keep, applied by looking at every group: the item
// next would hand out.
func scanFirst(q *Queue[string]) string {
	costlyAllowed := q.expensiveInFlight < q.maxExpensive()
	var chosen *group[string]
	var head *entry[string]
	for _, g := range q.groups {
		e, _ := g.head(costlyAllowed)
		if e == nil || (chosen != nil && !servedBefore(g, e, chosen, head)) {
			continue
		}
		chosen, head = g, e
	}
	if head == nil {
		return ""
	}
	return head.item
}

// Thousands of random adds (with priorities, of cheap and expensive items, again while
// in flight), hand-outs and Dones: every hand-out is the one a look at every group
// chooses, so no change of a group leaves it out of its place.
func TestTheOrdersHandOutWhatALookAtEveryGroupWould(t *testing.T) {
	q, _ := newTestQueue(t, 4)
	random := rand.New(rand.NewPCG(1, 2))
	var inFlight []string
	handedOut := 0
	for step := range 20000 {
		switch op := random.IntN(10); {
		case op < 5:
			item := fmt.Sprintf("ns-%d/item-%d", random.IntN(40), random.IntN(5))
			q.mu.Lock()
			if random.IntN(4) == 0 {
				q.expensive[item] = true
			}
			q.mu.Unlock()
			q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(random.IntN(3))}, item)
		case op < 8:
			q.mu.Lock()
			want := scanFirst(q)
			got := ""
			if e := q.next(); e != nil {
				got = e.item
			}
			q.mu.Unlock()
			if got != want {
				t.Fatalf("step %d: handed out %q, a look at every group chooses %q", step, got, want)
			}
			if got != "" {
				inFlight = append(inFlight, got)
				handedOut++
			}
		case len(inFlight) > 0:
			i := random.IntN(len(inFlight))
			q.Done(inFlight[i])
			inFlight = append(inFlight[:i], inFlight[i+1:]...)
		}
	}
	if handedOut < 1000 {
		t.Fatalf("only %d hand-outs: the test does not exercise the orders", handedOut)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, g := range q.groups {
		for slot, o := range q.order {
			head, _ := g.head(o.costly)
			if in := g.at[slot] >= 0 && o.groups[g.at[slot]] == g; in != (head != nil) {
				t.Errorf("group %s: in order %d is %v, with a head %v", g.name, slot, in, head != nil)
			}
		}
	}
}
