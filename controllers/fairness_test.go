package controllers

import "testing"

func TestNamespaceSlots(t *testing.T) {
	slots := newNamespaceSlots(4)
	releaseA1, ok := slots.acquire("team-a")
	if !ok {
		t.Fatal("the first reconcile of team-a found no slot")
	}
	if _, ok := slots.acquire("team-a"); !ok {
		t.Fatal("the second reconcile of team-a found no slot, with 4 workers it has 2")
	}
	if _, ok := slots.acquire("team-a"); ok {
		t.Fatal("a third reconcile of team-a got a slot: team-a could hold more than half the workers")
	}
	if _, ok := slots.acquire("team-b"); !ok {
		t.Fatal("team-b found no slot while team-a held its two")
	}
	releaseA1()
	if _, ok := slots.acquire("team-a"); !ok {
		t.Fatal("team-a found no slot after one was released")
	}
	if one := newNamespaceSlots(1); one.perNamespace != 1 {
		t.Fatalf("one worker gives each namespace %d slots, want 1", one.perNamespace)
	}
}
