package values

import "sort"

// tree is a values object that remembers, for every key, which block set it. Keys
// unset by a null stay behind as tombstones, so that provenance can say who unset them
// and higher defaults cannot fill them in; they are not part of the values.
type tree struct {
	fields map[string]*entry
}

type entry struct {
	object  *tree // set when the value is an object
	value   any   // the value otherwise: a scalar or a list
	deleted bool  // unset by a null
	origin  Origin
	pos     int // the place of the block that set it in the chain's order, lowest first
}

func newTree() *tree { return &tree{fields: map[string]*entry{}} }

// build makes the entry for a value of a block: null makes a tombstone.
func build(value any, origin Origin, pos int) *entry {
	switch value := value.(type) {
	case nil:
		return &entry{deleted: true, origin: origin, pos: pos}
	case map[string]any:
		return &entry{object: buildTree(value, origin, pos), origin: origin, pos: pos}
	default:
		return &entry{value: detached(value), origin: origin, pos: pos}
	}
}

// detached returns value, copied when it is a list or an object. A block's values are
// shared by every computation through the cache of decoded blocks, and a Result's
// values are its caller's to change: nothing of a block may end up in a Result.
func detached(value any) any {
	switch value := value.(type) {
	case []any:
		out := make([]any, len(value))
		for i, item := range value {
			out[i] = detached(item)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(value))
		for key, item := range value {
			out[key] = detached(item)
		}
		return out
	}
	return value
}

func buildTree(values map[string]any, origin Origin, pos int) *tree {
	t := &tree{fields: make(map[string]*entry, len(values))}
	for key, value := range values {
		t.fields[key] = build(value, origin, pos)
	}
	return t
}

// setsValues tells whether t holds a value other than tombstones and objects of them.
func (t *tree) setsValues() bool {
	for _, e := range t.fields {
		if !e.deleted && (e.object == nil || len(e.object.fields) == 0 || e.object.setsValues()) {
			return true
		}
	}
	return false
}

// values returns the plain object t holds, without tombstones.
func (t *tree) values() map[string]any {
	out := make(map[string]any, len(t.fields))
	for key, e := range t.fields {
		switch {
		case e.deleted:
		case e.object != nil:
			out[key] = e.object.values()
		default:
			out[key] = e.value
		}
	}
	return out
}

// plain returns the value e holds, nil for a tombstone.
func (e *entry) plain() any {
	switch {
	case e.deleted:
		return nil
	case e.object != nil:
		return e.object.values()
	default:
		return e.value
	}
}

// leaves visits every scalar, list, empty object and tombstone in path order. The path
// handed to visit shares its array with the rest of the walk, which appends to it rather
// than copying it at every level: visit must not keep it.
func (t *tree) leaves(prefix []string, visit func(path []string, e *entry)) {
	keys := make([]string, 0, len(t.fields))
	for key := range t.fields {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		e := t.fields[key]
		path := append(prefix, key)
		if e.object != nil && len(e.object.fields) > 0 {
			e.object.leaves(path, visit)
			continue
		}
		visit(path, e)
	}
}

// at returns the entry at path, or the deepest entry along it that is not an object (a
// scalar, a list or a tombstone that stands where path would go), or nil.
func (t *tree) at(path []string) *entry {
	var e *entry
	node := t
	for _, key := range path {
		e = node.fields[key]
		if e == nil {
			return nil
		}
		if e.object == nil {
			return e
		}
		node = e.object
	}
	return e
}
