package values

import (
	"math"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// deepCost charges every call by what it reads. CEL's own estimate charges some calls
// by the size of their arguments, but only calls whose overload it resolved when the
// condition compiled; `self` is of type dyn, so most calls on the values are dispatched
// at run time and CEL then charges 1 for them, whatever they read: size() of a 480 KB
// string counts its runes for 1 unit, and six conditions of about 500 units each took a
// second per computation. So here, whatever the overload:
//   - size(), and the conversions (int, double, bytes, timestamp, ...), of a string or
//     bytes: one unit per ten bytes (CEL's common.StringTraversalCostFactor); size() of
//     a list or an object reads its length only, and costs 1;
//   - <, <=, >, >= on strings or bytes: one unit per ten bytes of the shorter;
//   - + on strings or bytes: one unit per ten bytes it copies;
//   - contains, startsWith and endsWith: as CEL charges them when it knows the overload;
//   - matches: by the string times the pattern's program (matchCost);
//   - ==, != and in on lists and objects: one unit per nested item they walk (deepSize),
//     where CEL counts the items at the top only: a 34-byte condition comparing two
//     lists of 200,000 nested items in a loop ran for a minute within 10,000 units.
//
// Loops (all, exists, map, filter) are charged per item by CEL itself.
//
// The charge comes after the call, so it stops the evaluation at the first call over
// the bound; the bounds of a block keep that one call short (a linear walk of at most
// 512 KB), except matches, whose work grows with the pattern times the string: it is
// checked before it runs (boundedMatches).
type deepCost struct{}

func (deepCost) CallCost(function, overloadID string, args []ref.Val, _ ref.Val) *uint64 {
	var cost uint64
	switch {
	case len(args) == 1:
		if !readsLength(function) || !isText(args[0]) {
			return nil
		}
		cost = traversal(textSize(args[0]))
	case len(args) != 2:
		return nil
	case function == operators.Add:
		if !isText(args[0]) || !isText(args[1]) {
			return nil
		}
		cost = traversal(textSize(args[0]) + textSize(args[1]))
	case function == operators.Less || function == operators.LessEquals || function == operators.Greater || function == operators.GreaterEquals:
		if !isText(args[0]) || !isText(args[1]) {
			return nil
		}
		cost = traversal(min(textSize(args[0]), textSize(args[1])))
	case function == overloads.Contains:
		cost = traversal(textSize(args[0])) * traversal(textSize(args[1]))
	case function == overloads.StartsWith || function == overloads.EndsWith:
		cost = traversal(textSize(args[1]))
	case function == overloads.Matches:
		cost, _ = matchCost(args[0], args[1])
	case overloadID == overloads.Equals || overloadID == overloads.NotEquals:
		if !walked(args[0]) && !walked(args[1]) {
			return nil // scalars: CEL's own estimate is right
		}
		cost = min(deepSize(args[0]), deepSize(args[1]))
	case function == operators.In:
		if _, isList := args[1].(traits.Lister); !isList {
			return nil // a key of an object: looked up, not walked
		}
		cost = deepSize(args[1])
	default:
		return nil
	}
	return &cost
}

// readsLength tells whether a function of one argument reads the whole of a string or
// bytes it is given.
func readsLength(function string) bool {
	switch function {
	case overloads.Size, overloads.TypeConvertInt, overloads.TypeConvertUint, overloads.TypeConvertDouble,
		overloads.TypeConvertBool, overloads.TypeConvertString, overloads.TypeConvertBytes,
		overloads.TypeConvertTimestamp, overloads.TypeConvertDuration:
		return true
	}
	return false
}

func isText(v ref.Val) bool {
	switch v.(type) {
	case types.String, types.Bytes:
		return true
	}
	return false
}

// textSize is the length in bytes of a string or bytes, 1 for anything else.
func textSize(v ref.Val) uint64 {
	switch v := v.(type) {
	case types.String:
		return uint64(len(v))
	case types.Bytes:
		return uint64(len(v))
	}
	return 1
}

// traversal is the cost of reading n bytes, at least 1.
func traversal(n uint64) uint64 {
	return max(1, uint64(math.Ceil(float64(n)*common.StringTraversalCostFactor)))
}

// walked tells whether comparing v walks it: a list or an object.
func walked(v ref.Val) bool {
	switch v.(type) {
	case traits.Lister, traits.Mapper:
		return true
	}
	return false
}

// deepSize is the size of v in cost units: one per value, list item and key, and one
// per ten bytes of a string, as CEL charges a string's traversal. It stops counting
// past MaxWhenCost, where any charge stops the evaluation, so that measuring a value
// costs no more than the bound.
func deepSize(v ref.Val) uint64 {
	s := sizer{}
	s.value(v)
	return s.n
}

type sizer struct{ n uint64 }

func (s *sizer) full() bool { return s.n > MaxWhenCost }

// value sizes a CEL value: the values of a computation as the adapter hands them, or
// lists and maps a condition built.
func (s *sizer) value(v ref.Val) {
	if s.full() {
		return
	}
	switch v := v.(type) {
	case sortedMap:
		s.native(v.object)
	case traits.Lister:
		if items, ok := v.Value().([]any); ok {
			s.native(items)
			return
		}
		s.n++
		for it := v.Iterator(); it.HasNext() == types.True && !s.full(); {
			s.value(it.Next())
		}
	case traits.Mapper:
		s.n++
		for it := v.Iterator(); it.HasNext() == types.True && !s.full(); {
			key := it.Next()
			s.value(key)
			s.value(v.Get(key))
		}
	case types.String:
		s.n += 1 + uint64(len(v))/10
	default:
		s.n++
	}
}

// native sizes a value as decoded from JSON.
func (s *sizer) native(v any) {
	if s.full() {
		return
	}
	s.n++
	switch v := v.(type) {
	case string:
		s.n += uint64(len(v)) / 10
	case []any:
		for _, item := range v {
			s.native(item)
		}
	case map[string]any:
		for key, item := range v {
			s.n += uint64(len(key)) / 10
			s.native(item)
		}
	}
}
