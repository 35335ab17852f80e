package routes

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// A memo finds a route by the object it was handed, by its UID when it is another copy,
// never at another generation; an entry follows its route's latest object; and a pass
// forgets the routes it did not see.
func TestMemoFindsARouteByItsObjectThenItsUID(t *testing.T) {
	route := func(uid string, gen int64) *gatewayv1.HTTPRoute {
		return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: uid, UID: k8stypes.UID("uid-" + uid), Generation: gen}}
	}
	var m Memo[string]
	m.Pass()
	a, b := route("a", 1), route("b", 1)
	kept := m.Keep(a, func(v *string) { *v = "a1" })
	m.Keep(b, func(v *string) { *v = "b1" })
	if e := m.Find(a); e != kept || e.Value != "a1" {
		t.Fatalf("a by its object: %v", e)
	}
	copyOfA := a.DeepCopy()
	if e := m.Find(copyOfA); e != kept || e.Route != copyOfA {
		t.Fatalf("a copy of a by its UID: %v, want the entry, now of the copy", e)
	}
	if _, stale := m.byObject[a]; stale || m.byObject[copyOfA] != kept {
		t.Errorf("the entry is found by its old object, or not by its new one")
	}
	edited := route("a", 2)
	if e := m.Find(edited); e != nil {
		t.Errorf("a at a new generation found %q", e.Value)
	}
	inPlace := copyOfA
	inPlace.Generation = 3 // an object changed in place (no cache does) is no longer found
	if e := m.Find(inPlace); e != nil {
		t.Errorf("an object edited in place found %q", e.Value)
	}
	if e := m.Keep(edited, func(v *string) { *v += ">a2" }); e != kept || e.Value != "a1>a2" || e.Generation != 2 {
		t.Errorf("kept anew: %+v, want a's entry, its value changed", e)
	}
	if e := m.Find(route("c", 1)); e != nil || m.Keep(&gatewayv1.HTTPRoute{}, func(*string) {}) != nil {
		t.Errorf("a route never kept, or without a UID, has an entry")
	}

	m.Pass()
	if m.Seen(kept) {
		t.Errorf("a new pass has seen a")
	}
	m.Find(edited)
	m.ForgetUnseen()
	if m.Len() != 1 || len(m.byObject) != 1 || m.Find(b) != nil || !m.Seen(kept) {
		t.Errorf("after a pass that saw a alone: %d routes, %d objects, b found: %v", m.Len(), len(m.byObject), m.Find(b) != nil)
	}
}
