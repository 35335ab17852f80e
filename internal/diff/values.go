package diff

import (
	"cmp"
	"reflect"
	"slices"

	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// valueChanges compares the leaves of the two results' values, by path. Values
// dropped by an Atomic or Merge block are not among the values, and a null unset holds
// none. Nothing is reported where the new values are not computed: the error says why,
// in the conditions.
func valueChanges(old, now *translate.Result) []ValueChange {
	if now == nil || now.Values == nil {
		return []ValueChange{}
	}
	before, after := leaves(old), leaves(now)
	out := []ValueChange{}
	for path, was := range before {
		if is, ok := after[path]; !ok {
			out = append(out, ValueChange{Path: path, Old: valueOf(was), New: nil})
		} else if !sameValue(was, is) {
			out = append(out, ValueChange{Path: path, Old: valueOf(was), New: valueOf(is), Source: is.Origin.String()})
		}
	}
	for path, is := range after {
		if _, ok := before[path]; !ok {
			out = append(out, ValueChange{Path: path, Old: nil, New: valueOf(is), Source: is.Origin.String()})
		}
	}
	slices.SortFunc(out, func(a, b ValueChange) int { return cmp.Compare(a.Path, b.Path) })
	return out
}

// leaves are the provenance leaves of res's values by path, without the dropped ones.
func leaves(res *translate.Result) map[string]values.Leaf {
	if res == nil || res.Values == nil {
		return nil
	}
	out := make(map[string]values.Leaf, len(res.Values.Provenance))
	for _, leaf := range res.Values.Provenance {
		if leaf.DroppedBy == nil {
			out[leaf.Path] = leaf
		}
	}
	return out
}

// valueOf is the leaf's value, nil for a null unset.
func valueOf(leaf values.Leaf) any {
	if leaf.Unset {
		return nil
	}
	return leaf.Value
}

func sameValue(a, b values.Leaf) bool {
	return a.Unset == b.Unset && reflect.DeepEqual(a.Value, b.Value)
}
