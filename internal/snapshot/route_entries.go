package snapshot

import (
	"maps"

	"k8s.io/apimachinery/pkg/types"

	"github.com/gatewright/gatewright/internal/routes"
)

// routeEntries keep a value per route between the passes over a Gateway's routes, each
// holding for the route's generation. An entry is found by the route object first: the
// controller's cache hands out the same object until the route changes (an informer
// replaces what it holds, never edits it), so a route unchanged since the last pass is
// found without reading its UID, only its generation. A route read anew (a List's copy,
// the object after a status write) is found by its UID, and its entry then by the new
// object. An entry holds its latest object, which keeps that object's address from
// being reused while the entry lives.
type routeEntries[V any] struct {
	byUID    map[types.UID]*routeEntry[V]
	byObject map[routes.Route]*routeEntry[V]
	pass     uint64
}

// routeEntry is a route's value at its generation, and the latest pass that saw it.
type routeEntry[V any] struct {
	route      routes.Route
	generation int64
	value      V
	pass       uint64
}

func newRouteEntries[V any]() routeEntries[V] {
	return routeEntries[V]{byUID: map[types.UID]*routeEntry[V]{}, byObject: map[routes.Route]*routeEntry[V]{}}
}

// find is route's entry at its generation, marked seen by this pass; nil when there is
// none (or route has no UID: read from a file, never kept).
func (m *routeEntries[V]) find(route routes.Route) *routeEntry[V] {
	if e := m.byObject[route]; e != nil && e.generation == route.GetGeneration() {
		e.pass = m.pass
		return e
	}
	uid := route.GetUID()
	if uid == "" {
		return nil
	}
	e := m.byUID[uid]
	if e == nil || e.generation != route.GetGeneration() {
		return nil
	}
	m.moveTo(e, route)
	e.pass = m.pass
	return e
}

// keep sets route's value at its generation with set, which changes the value the
// route's entry had (the zero value for a route the memo does not hold), marked seen by
// this pass, and returns the entry: the route's earlier entry when there is one, so that
// an entry stands for one route (one UID, so one namespace and name) for as long as the
// memo holds it. A route without a UID is not kept (nil).
func (m *routeEntries[V]) keep(route routes.Route, set func(*V)) *routeEntry[V] {
	uid := route.GetUID()
	if uid == "" {
		return nil
	}
	e := m.byUID[uid]
	if e == nil {
		e = &routeEntry[V]{}
		m.byUID[uid] = e
	}
	m.moveTo(e, route)
	e.generation, e.pass = route.GetGeneration(), m.pass
	set(&e.value)
	return e
}

// moveTo makes route the object e is found by.
func (m *routeEntries[V]) moveTo(e *routeEntry[V], route routes.Route) {
	if e.route == route {
		return
	}
	if e.route != nil {
		delete(m.byObject, e.route)
	}
	e.route = route
	m.byObject[route] = e
}

// forgetUnseen forgets the routes this pass did not see.
func (m *routeEntries[V]) forgetUnseen() {
	seen := func(e *routeEntry[V]) bool { return e.pass == m.pass }
	maps.DeleteFunc(m.byUID, func(_ types.UID, e *routeEntry[V]) bool { return !seen(e) })
	maps.DeleteFunc(m.byObject, func(_ routes.Route, e *routeEntry[V]) bool { return !seen(e) })
}

// clear forgets every route.
func (m *routeEntries[V]) clear() {
	clear(m.byUID)
	clear(m.byObject)
}
