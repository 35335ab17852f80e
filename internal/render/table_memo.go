package render

import (
	"errors"
	"reflect"
	"sync"

	"github.com/gatewright/gatewright/internal/routing"
)

// TableMemo keeps the template data of a Gateway's route table matches and route
// verdicts from one render of the Gateway to the next: each is converted again only when
// it changed. A Gateway of thousands of routes is rendered again for each route's edit,
// and converting every match was a third of that render.
//
// The data it hands out is shared between renders, so no template may change it: set,
// unset and the merges into a match's or a verdict's data, or any map in it, fail
// (errSharedData). A render without a memo builds its own, so that templates behave the
// same offline. One memo serves one Gateway; it is safe for concurrent use.
type TableMemo struct {
	mu       sync.Mutex
	matches  map[string]*memoEntry[routing.Match]                   // by the match's name in the table
	verdicts map[routing.ObjectRef]*memoEntry[routing.RouteVerdict] // by the route
	// shared holds every map of the data handed out, by address: the memo holds the
	// maps, so no other map takes one of these addresses while it is here.
	shared map[uintptr]bool
}

// memoEntry is the data converted from one item of the table, and whether the latest
// table had the item.
type memoEntry[T any] struct {
	from T
	data map[string]any
	used bool
}

// errSharedData is what changing the route table's data fails with.
var errSharedData = errors.New("the route table is shared by every render of the Gateway and cannot be changed: deepCopy what you would change")

// NewTableMemo is an empty memo, for one Gateway.
func NewTableMemo() *TableMemo {
	return &TableMemo{matches: map[string]*memoEntry[routing.Match]{}, verdicts: map[routing.ObjectRef]*memoEntry[routing.RouteVerdict]{}, shared: map[uintptr]bool{}}
}

// match is m's data: the memo's if m is what it was converted from, else converted now.
func (t *TableMemo) match(m *routing.Match) map[string]any {
	return memoized(t, t.matches, m.Name, m, matchData)
}

// verdict is v's data, as match is m's.
func (t *TableMemo) verdict(v *routing.RouteVerdict) map[string]any {
	return memoized(t, t.verdicts, v.ObjectRef, v, verdictData)
}

// memoized is item's data, kept in entries under key: the memo's if item is what it was
// converted from, else converted now.
func memoized[K comparable, T any](t *TableMemo, entries map[K]*memoEntry[T], key K, item *T, convert func(*T) map[string]any) map[string]any {
	if e, ok := entries[key]; ok && reflect.DeepEqual(&e.from, item) {
		e.used = true
		return e.data
	}
	forget(t, entries, key)
	data := convert(item)
	entries[key] = &memoEntry[T]{from: *item, data: data, used: true}
	t.walkMaps(data, func(p uintptr) { t.shared[p] = true })
	return data
}

// sweep forgets the matches and verdicts the latest table did not have, and marks the
// others unused for the next.
func (t *TableMemo) sweep() {
	sweep(t, t.matches)
	sweep(t, t.verdicts)
}

func sweep[K comparable, T any](t *TableMemo, entries map[K]*memoEntry[T]) {
	for key, e := range entries {
		if !e.used {
			forget(t, entries, key)
			continue
		}
		e.used = false
	}
}

func forget[K comparable, T any](t *TableMemo, entries map[K]*memoEntry[T], key K) {
	if e, ok := entries[key]; ok {
		t.walkMaps(e.data, func(p uintptr) { delete(t.shared, p) })
		delete(entries, key)
	}
}

// walkMaps calls fn with the address of every map in data, data included.
func (t *TableMemo) walkMaps(data any, fn func(uintptr)) {
	switch v := data.(type) {
	case map[string]any:
		fn(reflect.ValueOf(v).Pointer())
		for _, item := range v {
			t.walkMaps(item, fn)
		}
	case []any:
		for _, item := range v {
			t.walkMaps(item, fn)
		}
	}
}

// isShared tells whether m is a map of the data the memo handed out.
func (t *TableMemo) isShared(m any) bool {
	if t == nil {
		return false
	}
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Map || v.IsNil() {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.shared[v.Pointer()]
}
