package values

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	celenv "github.com/google/cel-go/common/env"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Bounds on conditions (`when`). A condition is evaluated at every computation of the
// values it reaches, on values a tenant may write, so both its size and its work are
// bounded.
const (
	// MaxWhenBytes bounds the text of a condition.
	MaxWhenBytes = 4096
	// MaxWhenCost bounds the work of one evaluation, in CEL's cost units, with
	// comparisons of lists and objects charged by what they walk (deepCost): enough to
	// look at about 2,000 values (self.limits.a.limit > 100 costs 5, and each item of
	// self.items.all(x, x >= 0) about 5). It is a hundredth of the API server's limit
	// for a CRD validation rule, which runs once per write, because a condition runs
	// at every computation of every Gateway and route it reaches. A condition over the
	// limit fails at run time, and its block applies (it fails closed).
	MaxWhenCost = 10_000
	// MaxWhenTime bounds the time of one evaluation. CEL checks it every
	// interruptCheckFrequency iterations of a loop (all, exists, map, filter).
	MaxWhenTime             = 100 * time.Millisecond
	interruptCheckFrequency = 100
	// maxCachedConditions bounds the compiled conditions kept.
	maxCachedConditions = 1024
	// maxWhenErrorBytes bounds the message of a condition that failed, which may
	// quote the values (no such key: ...).
	maxWhenErrorBytes = 256
)

// condition is a compiled `when`.
type condition struct {
	expression string
	program    cel.Program
}

// holds evaluates the condition with self bound to the values below the block, within
// MaxWhenTime of ctx's deadline, and returns the cost units it used.
func (c *condition) holds(ctx context.Context, self map[string]any) (bool, uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, MaxWhenTime)
	defer cancel()
	out, details, err := c.program.ContextEval(ctx, map[string]any{"self": newSortedAdapter().NativeToValue(self)})
	var cost uint64
	if used := details.ActualCost(); used != nil {
		cost = *used
	}
	if err != nil {
		message, cut := cutAt(err.Error(), maxWhenErrorBytes)
		if cut {
			message += "…"
		}
		return false, cost, errors.New(message)
	}
	holds, isBool := out.Value().(bool)
	if !isBool {
		return false, cost, fmt.Errorf("evaluated to %s, not a bool", out.Type().TypeName())
	}
	return holds, cost, nil
}

// conditionCache compiles each distinct expression once and keeps the most recently
// used ones. Keying by the expression's text rather than by the policy that holds it
// compiles a policy's condition once per change of its text, shares it between
// policies that repeat it, and can never hand a stale program to a new generation.
// Refusals are kept too, so a broken condition is not compiled again at every
// computation. Safe for concurrent use.
type conditionCache struct {
	env *cel.Env
	max int

	mu      sync.Mutex
	entries map[string]*list.Element // of *compiled
	recent  *list.List               // most recently used first
}

type compiled struct {
	expression string
	condition  *condition
	err        error
}

func newConditionCache(max int) (*conditionCache, error) {
	env, err := cel.NewCustomEnv(
		// The standard library, with matches checked before it runs (boundedMatches).
		cel.StdLib(cel.StdLibSubset(&celenv.LibrarySubset{ExcludeFunctions: []*celenv.Function{celenv.NewFunction(overloads.Matches)}})),
		cel.Function(overloads.Matches,
			cel.Overload(overloads.Matches, []*cel.Type{cel.StringType, cel.StringType}, cel.BoolType),
			cel.MemberOverload(overloads.MatchesString, []*cel.Type{cel.StringType, cel.StringType}, cel.BoolType),
			cel.SingletonBinaryBinding(boundedMatches)),
		cel.Variable("self", cel.DynType),
		// Values come from JSON, where 1 and 1.0 are the same number.
		cel.CrossTypeNumericComparisons(true),
		// self.?limits.?a.orValue(...) reads keys that may be missing without an error.
		cel.OptionalTypes(),
		cel.ParserExpressionSizeLimit(MaxWhenBytes),
	)
	if err != nil {
		return nil, err
	}
	return &conditionCache{env: env, max: max, entries: map[string]*list.Element{}, recent: list.New()}, nil
}

// conditions is the cache every computation uses.
var conditions = sync.OnceValue(func() *conditionCache {
	cache, err := newConditionCache(maxCachedConditions)
	if err != nil {
		panic(fmt.Sprintf("the CEL environment of conditions does not build: %v", err))
	}
	return cache
})

// compile returns the condition of expression, compiled now or earlier.
func (c *conditionCache) compile(expression string) (*condition, error) {
	c.mu.Lock()
	if element, ok := c.entries[expression]; ok {
		c.recent.MoveToFront(element)
		entry := element.Value.(*compiled)
		c.mu.Unlock()
		return entry.condition, entry.err
	}
	c.mu.Unlock()

	// Compiling takes a while; two callers may compile the same expression at once,
	// which costs time but no correctness.
	cond, err := c.build(expression)

	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[expression]; !ok {
		c.entries[expression] = c.recent.PushFront(&compiled{expression: expression, condition: cond, err: err})
		for c.recent.Len() > c.max {
			oldest := c.recent.Back()
			c.recent.Remove(oldest)
			delete(c.entries, oldest.Value.(*compiled).expression)
		}
	}
	return cond, err
}

func (c *conditionCache) build(expression string) (*condition, error) {
	switch {
	case len(expression) > MaxWhenBytes:
		return nil, fmt.Errorf("is longer than %d bytes", MaxWhenBytes)
	case expression == "":
		return nil, errors.New("is empty: leave out when for a block that always applies")
	}
	ast, issues := c.env.Compile(expression)
	if issues != nil && issues.Err() != nil {
		return nil, fmt.Errorf("does not compile: %s", errorLines(issues.Err().Error()))
	}
	if out := ast.OutputType(); !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.DynType) {
		return nil, fmt.Errorf("must evaluate to a bool, not %s", out)
	}
	program, err := c.env.Program(ast, cel.CostLimit(MaxWhenCost), cel.CostTracking(deepCost{}),
		cel.InterruptCheckFrequency(interruptCheckFrequency))
	if err != nil {
		return nil, fmt.Errorf("does not compile: %w", err)
	}
	return &condition{expression: expression, program: program}, nil
}

// sortedAdapter hands values to CEL with objects that iterate their keys in order. CEL's
// own maps iterate as Go maps do, at random, and a condition such as
// self.map(k, k)[0] == 'a' would then flip from one computation to the next. One adapter
// serves one evaluation, and sorts the keys of each object once: a loop over an object
// inside another loop (self.l.all(x, self.m.exists(k, true))) would otherwise sort it
// again at every item, for the one unit its first item costs.
type sortedAdapter struct {
	keys map[uintptr][]string // by the object's map
}

func newSortedAdapter() *sortedAdapter {
	return &sortedAdapter{keys: map[uintptr][]string{}}
}

func (a *sortedAdapter) NativeToValue(value any) ref.Val {
	switch value := value.(type) {
	case map[string]any:
		return sortedMap{Mapper: types.NewStringInterfaceMap(a, value), object: value, adapter: a}
	case []any:
		return types.NewDynamicList(a, value)
	}
	return types.DefaultTypeAdapter.NativeToValue(value)
}

// sortedKeys returns the keys of object in order, sorted once per evaluation.
func (a *sortedAdapter) sortedKeys(object map[string]any) []string {
	id := uintptr(reflect.ValueOf(object).UnsafePointer())
	keys, ok := a.keys[id]
	if !ok {
		keys = sortedKeys(object)
		a.keys[id] = keys
	}
	return keys
}

// sortedMap is an object of the values whose keys CEL visits in order.
type sortedMap struct {
	traits.Mapper
	object  map[string]any
	adapter *sortedAdapter
}

func (m sortedMap) Iterator() traits.Iterator {
	return types.NewStringList(types.DefaultTypeAdapter, m.adapter.sortedKeys(m.object)).Iterator()
}
