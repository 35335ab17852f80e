package values_test

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/gatewright/gatewright/internal/values"
)

// FuzzLimits feeds arbitrary JSON as a tenant's default: the bounds either refuse it
// with a short message, or what they let through really is within them.
func FuzzLimits(f *testing.F) {
	f.Add(nested(values.MaxDepth + 1))
	f.Add(nestedLists(values.MaxDepth + 1))
	f.Add(`{"big":1e400,"deep":` + nested(values.MaxDepth) + "}")
	f.Add(`{ "a\"b" : [ { "c" : null }, [ [ ] ] ], "\u00e9": {} }`)
	f.Add(flatKeys(20))
	f.Add(`{"l": [ {}, [ ], 1 , "x", [[], {"k": []}] ]}`)
	f.Add(longPath(300, 300, 300, 300))
	f.Fuzz(func(t *testing.T, raw string) {
		in, gw, _ := blockInputs(values.LevelGateway, "web", values.Default, raw)
		res, err := in.ForGateway(gw)
		var limitErr *values.LimitError
		switch {
		case errors.As(err, &limitErr):
			if msg := err.Error(); len(msg) >= 1024 || !utf8.ValidString(msg) {
				t.Fatalf("message of %d bytes, or not UTF-8: %q", len(msg), msg)
			}
		case err == nil:
			if d := depth(res.Values); d > values.MaxDepth {
				t.Fatalf("values %d deep passed the bounds", d)
			}
			if n := countElements(res.Values); n > values.MaxElements {
				t.Fatalf("values with %d elements passed the bounds", n)
			}
		}
	})
}

// depth counts the objects and lists nested in value, value included.
func depth(value any) int {
	deepest := 0
	switch value := value.(type) {
	case map[string]any:
		for _, v := range value {
			deepest = max(deepest, depth(v))
		}
	case []any:
		for _, v := range value {
			deepest = max(deepest, depth(v))
		}
	default:
		return 0
	}
	return 1 + deepest
}

// countElements counts the keys of the objects and the items of the lists in value,
// at all depths.
func countElements(value any) int {
	n := 0
	switch value := value.(type) {
	case map[string]any:
		for _, v := range value {
			n += 1 + countElements(v)
		}
	case []any:
		for _, v := range value {
			n += 1 + countElements(v)
		}
	}
	return n
}
