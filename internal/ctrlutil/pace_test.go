package ctrlutil

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A lone event reconciles at once; a burst within the interval waits for its end, one
// reconcile for all of it; the next burst waits for the end of the interval after that.
func TestPaceSpacesBurstsAndLetsLoneEventsThrough(t *testing.T) {
	p := &Pace{Every: time.Hour}
	gw := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "a", Name: "gw"}}
	other := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "b", Name: "gw"}}
	if wait := p.Wait(gw); wait != 0 {
		t.Fatalf("the first event waits %s", wait)
	}
	first := p.Wait(gw)
	if first <= 59*time.Minute || first > time.Hour {
		t.Fatalf("an event right after waits %s, want the rest of the interval", first)
	}
	if again := p.Wait(gw); again > first || again < first-time.Minute {
		t.Errorf("another event of the same burst waits %s, not for the same reconcile (%s)", again, first)
	}
	if wait := p.Wait(other); wait != 0 {
		t.Errorf("another request's first event waits %s", wait)
	}
	p.mu.Lock()
	p.at[gw] = p.at[gw].Add(-3 * time.Hour) // the burst's reconcile started long ago
	p.mu.Unlock()
	if wait := p.Wait(gw); wait != 0 {
		t.Errorf("an event an interval after the last reconcile waits %s", wait)
	}
}

// Requests not seen for an interval are forgotten once there are many, and only then:
// the pass over them is not made at every event.
func TestPaceForgetsOldRequestsWhenMany(t *testing.T) {
	p := &Pace{Every: time.Minute}
	request := func(namespace string, i int) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: fmt.Sprint(i)}}
	}
	for i := range 1000 {
		p.Wait(request("gone", i))
	}
	p.mu.Lock()
	for req := range p.at {
		p.at[req] = p.at[req].Add(-time.Hour)
	}
	p.mu.Unlock()
	for i := range 20 {
		p.Wait(request("new", i))
	}
	if len(p.at) != 1020 {
		t.Fatalf("%d requests remembered below the bound, want all 1,020", len(p.at))
	}
	for i := 20; i < 30; i++ {
		p.Wait(request("new", i))
	}
	if len(p.at) != 30 {
		t.Fatalf("%d requests remembered after a pass, want the 30 seen within the interval", len(p.at))
	}
}
