package render

import (
	"errors"
	"reflect"
	"sync"

	"github.com/gatewright/gatewright/internal/routing"
)

// TableMemo keeps the template data of a Gateway's route table matches from one render
// of the Gateway to the next: a route's matches are converted again only when they
// changed. A Gateway of thousands of routes is rendered again for each route's edit, and
// converting every match was a third of that render.
//
// The data it hands out is shared between renders, so no template may change it: set,
// unset and the merges into a match's data, or any map in it, fail (errSharedData). A
// render without a memo builds its own, so that templates behave the same offline.
// One memo serves one Gateway; it is safe for concurrent use.
type TableMemo struct {
	mu      sync.Mutex
	matches map[string]*memoMatch // by the match's name in the table
	// shared holds every map of the data handed out, by address: the memo holds the
	// maps, so no other map takes one of these addresses while it is here.
	shared map[uintptr]bool
}

type memoMatch struct {
	match routing.Match
	data  map[string]any
	used  bool
}

// errSharedData is what changing the route table's data fails with.
var errSharedData = errors.New("the route table is shared by every render of the Gateway and cannot be changed: deepCopy what you would change")

// NewTableMemo is an empty memo, for one Gateway.
func NewTableMemo() *TableMemo {
	return &TableMemo{matches: map[string]*memoMatch{}, shared: map[uintptr]bool{}}
}

// match is m's data: the memo's if m is what it was converted from, else converted now.
func (t *TableMemo) match(m *routing.Match) map[string]any {
	if e, ok := t.matches[m.Name]; ok && reflect.DeepEqual(&e.match, m) {
		e.used = true
		return e.data
	}
	t.forget(m.Name)
	data := matchData(m)
	t.matches[m.Name] = &memoMatch{match: *m, data: data, used: true}
	t.walkMaps(data, func(p uintptr) { t.shared[p] = true })
	return data
}

// sweep forgets the matches the latest table did not have, and marks the others unused
// for the next.
func (t *TableMemo) sweep() {
	for name, e := range t.matches {
		if !e.used {
			t.forget(name)
			continue
		}
		e.used = false
	}
}

func (t *TableMemo) forget(name string) {
	if e, ok := t.matches[name]; ok {
		t.walkMaps(e.data, func(p uintptr) { delete(t.shared, p) })
		delete(t.matches, name)
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
