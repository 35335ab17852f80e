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

// deepCost charges ==, != and in on lists and objects by what they walk, and + on strings
// by what it copies. CEL's own
// estimate charges them by the number of items at the top, one for [[0, 0, ...]], while
// the comparison visits every nested item: a 34-byte condition comparing two lists of
// 200,000 nested items in a loop ran for a minute within 10,000 units. The charge comes
// after the call, so it stops the evaluation at the first call over the bound; the
// bounds of a chain keep that one call's walk short.
type deepCost struct{}

func (deepCost) CallCost(function, overloadID string, args []ref.Val, _ ref.Val) *uint64 {
	var cost uint64
	switch {
	case len(args) != 2:
		return nil
	case function == operators.Add && overloadID == "":
		// + on values of type dyn is dispatched at run time, and CEL then charges 1 for
		// it, while joining two strings copies both: a loop of self.s + self.s over a
		// large string allocated gigabytes within the bound. Charged as CEL charges a
		// + it knows to be on strings.
		a, aIsString := args[0].(types.String)
		b, bIsString := args[1].(types.String)
		if !aIsString || !bIsString {
			return nil
		}
		cost = uint64(math.Ceil(float64(len(a)+len(b)) * common.StringTraversalCostFactor))
	case overloadID == overloads.Equals || overloadID == overloads.NotEquals:
		if !walked(args[0]) && !walked(args[1]) {
			return nil // scalars: CEL's own estimate is right
		}
		cost = min(deepSize(args[0]), deepSize(args[1]))
	case overloadID == overloads.InList:
		cost = deepSize(args[1])
	default:
		return nil
	}
	return &cost
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
