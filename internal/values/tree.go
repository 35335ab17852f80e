package values

import "sort"

// tree is a values object that remembers, for every key, which origin last set it.
// Keys deleted by a null stay behind as tombstones so that provenance can say who
// unset them; they are not part of the values.
type tree struct {
	fields map[string]*entry
}

type entry struct {
	object  *tree // set when the value is an object
	value   any   // the value otherwise: a scalar or a list
	deleted bool  // unset by a null
	origin  Origin
}

func newTree() *tree { return &tree{fields: map[string]*entry{}} }

// apply merges patch into t as an RFC 7386 JSON Merge Patch: objects merge key by key,
// everything else replaces, and null deletes.
func (t *tree) apply(patch map[string]any, origin Origin) {
	for key, value := range patch {
		switch value := value.(type) {
		case nil:
			t.fields[key] = &entry{deleted: true, origin: origin}
		case map[string]any:
			e := t.fields[key]
			if e == nil || e.object == nil {
				e = &entry{object: newTree(), origin: origin}
				t.fields[key] = e
			}
			e.object.apply(value, origin)
		default:
			t.fields[key] = &entry{value: value, origin: origin}
		}
	}
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
