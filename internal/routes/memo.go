package routes

import (
	"maps"

	"k8s.io/apimachinery/pkg/types"
)

// Memo keeps a value per route between the passes over a Gateway's routes, each holding
// for the route's generation. An entry is found by the route object first: the
// controller's cache hands out the same object until the route changes (an informer
// replaces what it holds, never edits it), so a route unchanged since the last pass is
// found without reading its UID, only its generation. A route read anew (a List's copy,
// the object after a status write) is found by its UID, and its entry then by the new
// object. An entry holds its latest object, which keeps that object's address from being
// reused while the entry lives. Its zero value is empty; it is not safe for concurrent
// use.
type Memo[V any] struct {
	byUID    map[types.UID]*MemoEntry[V]
	byObject map[Route]*MemoEntry[V]
	pass     uint64
}

// MemoEntry is a route's value at its generation.
type MemoEntry[V any] struct {
	Route      Route
	Generation int64
	Value      V
	pass       uint64
}

// Pass starts a pass: entries are seen by it once Find or Keep hands them out.
func (m *Memo[V]) Pass() {
	m.pass++
}

// Seen tells whether this pass saw e.
func (m *Memo[V]) Seen(e *MemoEntry[V]) bool {
	return e.pass == m.pass
}

// Len is how many routes the memo holds.
func (m *Memo[V]) Len() int {
	return len(m.byUID)
}

// Find is route's entry at its generation, seen by this pass; nil when there is none (or
// route has no UID: read from a file, never kept).
func (m *Memo[V]) Find(route Route) *MemoEntry[V] {
	if e := m.byObject[route]; e != nil && e.Generation == route.GetGeneration() {
		e.pass = m.pass
		return e
	}
	uid := route.GetUID()
	if uid == "" {
		return nil
	}
	e := m.byUID[uid]
	if e == nil || e.Generation != route.GetGeneration() {
		return nil
	}
	m.moveTo(e, route)
	e.pass = m.pass
	return e
}

// Keep sets route's value at its generation with set, which changes the value the
// route's entry had (the zero value for a route the memo does not hold), and returns the
// entry, seen by this pass: the route's earlier entry when there is one, so that an
// entry stands for one route (one UID, so one namespace and name) for as long as the
// memo holds it. A route without a UID is not kept (nil).
func (m *Memo[V]) Keep(route Route, set func(*V)) *MemoEntry[V] {
	uid := route.GetUID()
	if uid == "" {
		return nil
	}
	if m.byUID == nil {
		m.byUID, m.byObject = map[types.UID]*MemoEntry[V]{}, map[Route]*MemoEntry[V]{}
	}
	e := m.byUID[uid]
	if e == nil {
		e = &MemoEntry[V]{}
		m.byUID[uid] = e
	}
	m.moveTo(e, route)
	e.Generation, e.pass = route.GetGeneration(), m.pass
	set(&e.Value)
	return e
}

// moveTo makes route the object e is found by.
func (m *Memo[V]) moveTo(e *MemoEntry[V], route Route) {
	if e.Route == route {
		return
	}
	if e.Route != nil {
		delete(m.byObject, e.Route)
	}
	e.Route = route
	m.byObject[route] = e
}

// ForgetUnseen forgets the routes this pass did not see.
func (m *Memo[V]) ForgetUnseen() {
	unseen := func(e *MemoEntry[V]) bool { return e.pass != m.pass }
	maps.DeleteFunc(m.byUID, func(_ types.UID, e *MemoEntry[V]) bool { return unseen(e) })
	maps.DeleteFunc(m.byObject, func(_ Route, e *MemoEntry[V]) bool { return unseen(e) })
}

// Clear forgets every route.
func (m *Memo[V]) Clear() {
	clear(m.byUID)
	clear(m.byObject)
}
