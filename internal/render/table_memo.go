package render

import (
	"errors"
	"reflect"
	"slices"
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
	matches  memoItems[string, routing.Match]                   // by the match's name in the table
	verdicts memoItems[routing.ObjectRef, routing.RouteVerdict] // by the route
	// shared holds every map of the data handed out, by address: the memo holds the
	// maps, so no other map takes one of these addresses while it is here. printed
	// holds what kept range bodies printed for some of them (range_memo.go), forgotten
	// with them.
	shared  map[uintptr]bool
	printed map[uintptr][]printedText
}

// printedText is what a kept range body printed for one map of the data.
type printedText struct {
	body int
	text string
}

// keptBodiesPerMap bounds the texts kept for one map: the bodies of a blueprint's
// generation that range over it, and those of the last few generations.
const keptBodiesPerMap = 4

// memoEntry is the data converted from one item of the table, whether the current
// table has the item, and where the latest had it (-1: it did not). gone is set once the
// memo forgot it. stable is the item's address when the table holds it where it never
// changes (a match, which the route table's memo keeps while its route is unchanged):
// the same address is the same item, known without reading it.
type memoEntry[T any] struct {
	stable *T
	gone   bool
	used   bool
	at     int
	data   map[string]any
	from   T
}

// memoItems are the entries of one kind of item, by key, and the order of the items of
// the latest table and of the current one so far. An item is looked for first where the
// latest table's order says the next one is: after a route's edit nearly every match and
// verdict is where it was, and comparing it with the entry there hashes no key.
type memoItems[K comparable, T any] struct {
	entries         map[K]*memoEntry[T]
	latest, current []*memoEntry[T]
	// next is where in latest the current table's next item is looked for.
	next int
}

// use marks e as the current table's next item, which the next follows in the latest
// table's order.
func (m *memoItems[K, T]) use(e *memoEntry[T]) map[string]any {
	e.used = true
	m.current = append(m.current, e)
	if e.at >= 0 {
		m.next = e.at + 1
	}
	return e.data
}

// errSharedData is what changing the route table's data fails with.
var errSharedData = errors.New("the route table is shared by every render of the Gateway and cannot be changed: deepCopy what you would change")

// NewTableMemo is an empty memo, for one Gateway.
func NewTableMemo() *TableMemo {
	return &TableMemo{
		matches:  memoItems[string, routing.Match]{entries: map[string]*memoEntry[routing.Match]{}},
		verdicts: memoItems[routing.ObjectRef, routing.RouteVerdict]{entries: map[routing.ObjectRef]*memoEntry[routing.RouteVerdict]{}},
		shared:   map[uintptr]bool{}, printed: map[uintptr][]printedText{},
	}
}

// match is m's data: the memo's if m is what it was converted from, else converted now.
// A table's matches are never changed (routing.MatchMemo): m's address is stable.
func (t *TableMemo) match(m *routing.Match) map[string]any {
	return memoized(t, &t.matches, func() string { return m.Name }, m, m, sameMatch, matchData)
}

// verdict is v's data, as match is m's. A table's verdicts are its own: their addresses
// are not kept, which would keep every table that had one.
func (t *TableMemo) verdict(v *routing.RouteVerdict) map[string]any {
	return memoized(t, &t.verdicts, func() routing.ObjectRef { return v.ObjectRef }, v, nil, sameVerdict, verdictData)
}

// memoized is item's data, kept in items under key: the memo's if item is the same as
// what it was converted from, else converted now.
func memoized[K comparable, T any](t *TableMemo, items *memoItems[K, T], key func() K, item, stable *T, same func(a, b *T) bool, convert func(*T) map[string]any) map[string]any {
	// Item equal to the entry means the same key: each key is a field of its item.
	isFrom := func(e *memoEntry[T]) bool {
		return (e.stable != nil && e.stable == item) || same(&e.from, item)
	}
	if items.next < len(items.latest) {
		if e := items.latest[items.next]; !e.gone && isFrom(e) {
			return items.use(e)
		}
	}
	k := key()
	if e, ok := items.entries[k]; ok && isFrom(e) {
		return items.use(e)
	}
	forget(t, items.entries, k)
	data := convert(item)
	e := &memoEntry[T]{stable: stable, from: *item, data: data, at: -1}
	items.entries[k] = e
	t.walkMaps(data, func(p uintptr) { t.shared[p] = true })
	return items.use(e)
}

// sameMatch tells whether x and y are equal: at once when they share their lists, as a
// match the route table's memo kept does with its last copy (routing.MatchMemo), else
// by reflection. Comparing every match of a Gateway by reflection was most of the
// memo's time on one route's edit.
func sameMatch(x, y *routing.Match) bool {
	if x.Route != y.Route || x.Rule != y.Rule || x.RuleName != y.RuleName || x.Match != y.Match ||
		x.Name != y.Name || x.Path != y.Path || x.Method != y.Method {
		return false
	}
	if sharedList(x.Headers, y.Headers) && sharedList(x.QueryParams, y.QueryParams) && sharedList(x.Filters, y.Filters) &&
		sharedList(x.Backends, y.Backends) && x.Timeouts == y.Timeouts {
		return true
	}
	return reflect.DeepEqual(x, y)
}

// sameVerdict tells whether x and y are equal, field by field.
func sameVerdict(x, y *routing.RouteVerdict) bool {
	return x.ObjectRef == y.ObjectRef && x.Accepted == y.Accepted && x.Reason == y.Reason && x.Message == y.Message &&
		(x.Listeners == nil) == (y.Listeners == nil) && slices.Equal(x.Listeners, y.Listeners)
}

// sharedList tells whether a and b are one list: both nil, both empty, or the same
// elements in memory.
func sharedList[T any](a, b []T) bool {
	return (a == nil) == (b == nil) && len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sweep forgets the matches and verdicts the latest table did not have, and marks the
// others unused for the next, in the order this table had them.
func (t *TableMemo) sweep() {
	sweep(t, &t.matches)
	sweep(t, &t.verdicts)
}

func sweep[K comparable, T any](t *TableMemo, items *memoItems[K, T]) {
	for key, e := range items.entries {
		if !e.used {
			forget(t, items.entries, key)
			continue
		}
		e.used = false
	}
	for i, e := range items.current {
		e.at = i
	}
	items.latest, items.current, items.next = items.current, items.latest[:0], 0
}

func forget[K comparable, T any](t *TableMemo, entries map[K]*memoEntry[T], key K) {
	if e, ok := entries[key]; ok {
		t.walkMaps(e.data, func(p uintptr) {
			delete(t.shared, p)
			delete(t.printed, p)
		})
		e.gone = true
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

// address is the address of m when it is a map of the data the memo handed out.
func (t *TableMemo) address(m any) (uintptr, bool) {
	if t == nil {
		return 0, false
	}
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Map || v.IsNil() {
		return 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return v.Pointer(), t.shared[v.Pointer()]
}

// printedFor is what body printed for the shared map at data, if the memo kept it.
func (t *TableMemo) printedFor(data uintptr, body int) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.shared[data] {
		return "", false
	}
	for _, p := range t.printed[data] {
		if p.body == body {
			return p.text, true
		}
	}
	return "", false
}

// printedOf is what body printed for m, when m is a shared map and the memo kept it.
func (t *TableMemo) printedOf(m any, body int) (string, bool) {
	data, ok := m.(map[string]any)
	if !ok || data == nil {
		return "", false
	}
	return t.printedFor(reflect.ValueOf(data).Pointer(), body)
}

// keepPrinted keeps what body printed for the shared map at data, while the memo holds
// the map; the oldest text goes beyond keptBodiesPerMap.
func (t *TableMemo) keepPrinted(data uintptr, body int, text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.shared[data] {
		return
	}
	kept := slices.DeleteFunc(t.printed[data], func(p printedText) bool { return p.body == body })
	if len(kept) >= keptBodiesPerMap {
		kept = kept[1:]
	}
	t.printed[data] = append(kept, printedText{body: body, text: text})
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
