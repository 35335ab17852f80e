package values

import (
	"errors"
	"fmt"
	"strings"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// A block is one half of a policy, read: its values, how they combine with the values
// below them, and when they apply.
type block struct {
	strategy Strategy
	when     *condition // nil: the block always applies
	values   map[string]any
}

// Keys of the block form, and words the shorthand refuses at its top level.
const (
	keyValues   = "values"
	keyStrategy = "strategy"
	keyWhen     = "when"
	keyUnset    = "unset"
)

// PolicyError says that a policy cannot be used as written: a block of the wrong shape,
// an unknown strategy, a condition that does not compile. Like a *LimitError, it stops
// the values of every Gateway and route the policy reaches (leaving the policy out
// could silently drop an override), and its policy is Invalid.
type PolicyError struct {
	Source Source
	// Field is where the fault is, such as spec.override.when.
	Field string
	Err   error
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("%s: %s: %v", e.Source, e.Field, e.Err)
}

func (e *PolicyError) Unwrap() error { return e.Err }

// readBlock reads a decoded half of a policy in the block form or the shorthand. field
// is where the half lives (spec.default), for errors.
func readBlock(object map[string]any, source Source, field string, conditions *conditionCache) (block, error) {
	fail := func(at string, err error) (block, error) {
		return block{}, &PolicyError{Source: source, Field: at, Err: err}
	}
	if _, isBlock := object[keyValues]; !isBlock {
		for _, word := range []string{keyStrategy, keyWhen, keyUnset} {
			if _, used := object[word]; used {
				return fail(field+"."+word, reservedError(word))
			}
		}
		return block{strategy: gatewrightv1alpha1.StrategyPatch, values: object}, nil
	}

	for _, key := range sortedKeys(object) {
		if key != keyValues && key != keyStrategy && key != keyWhen {
			hint := ""
			if key == keyUnset {
				hint = " (unset a key with key: null in values)"
			}
			return fail(field, fmt.Errorf("unknown key %q: a block has only values, strategy and when%s", key, hint))
		}
	}
	b := block{strategy: gatewrightv1alpha1.StrategyPatch}
	values, ok := object[keyValues].(map[string]any)
	if !ok {
		return fail(field+"."+keyValues, fmt.Errorf("must be an object, not %s", jsonType(object[keyValues])))
	}
	b.values = values
	if raw, set := object[keyStrategy]; set {
		strategy, _ := raw.(string)
		switch Strategy(strategy) {
		case gatewrightv1alpha1.StrategyPatch, gatewrightv1alpha1.StrategyMerge, gatewrightv1alpha1.StrategyAtomic:
			b.strategy = Strategy(strategy)
		default:
			return fail(field+"."+keyStrategy, fmt.Errorf("must be Patch, Merge or Atomic, not %s", shortJSON(raw)))
		}
	}
	if raw, set := object[keyWhen]; set {
		expression, isString := raw.(string)
		if !isString {
			return fail(field+"."+keyWhen, fmt.Errorf("must be a CEL expression in a string, not %s", jsonType(raw)))
		}
		when, err := conditions.compile(expression)
		if err != nil {
			return fail(field+"."+keyWhen, err)
		}
		b.when = when
	}
	return b, nil
}

func reservedError(word string) error {
	if word == keyUnset {
		return errors.New(`"unset" is reserved: unset a key with key: null, or write the block form {values: {unset: ...}} for a value named unset`)
	}
	return fmt.Errorf("%q is reserved outside the block form: write {values: {...}, %s: ...}, or {values: {%s: ...}} for a value named %s", word, word, word, word)
}

// shortJSON shows a scalar the way it was written, and anything else by its type, so
// that a message quotes at most a short value.
func shortJSON(value any) string {
	switch value := value.(type) {
	case string:
		return quotePrefix(value)
	case bool, int64, float64:
		return fmt.Sprint(value)
	}
	return jsonType(value)
}

// errorLines keeps the lines of a multi-line message that say what is wrong, dropping
// the excerpts of the expression that CEL adds, and joins them.
func errorLines(message string) string {
	var kept []string
	for _, line := range strings.Split(message, "\n") {
		if trimmed := strings.TrimSpace(line); trimmed != "" && !strings.HasPrefix(trimmed, "|") {
			kept = append(kept, trimmed)
		}
	}
	return strings.Join(kept, "; ")
}
