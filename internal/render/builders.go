package render

import (
	"fmt"
	"reflect"
	"text/template"
)

// A builder is a template function whose result, or whose work, can be much larger than
// its arguments: indent 80000000, repeat, a list appended to in a loop, toYaml of a large
// value. Each render binds its builders to its binder, so that every call draws, before
// it runs, the bytes its cost says it allocates (see allocation.go). Functions that
// allocate nothing or little (trim, substr, first, default) are not builders: what they
// give is written, and the output is bounded.

// cost is how many bytes a call of a builder allocates, at most.
type cost func(call) int

// call is one call of a builder: its arguments, the variadic ones last in one slice, and
// what is left of the budget, past which measuring them is pointless.
type call struct {
	args     []reflect.Value
	variadic bool
	left     int
}

// textBuiltins are text/template's own functions that build text; a function map may
// replace them.
var textBuiltins = template.FuncMap{
	"print": fmt.Sprint, "printf": fmt.Sprintf, "println": fmt.Sprintln,
	"html": template.HTMLEscaper, "js": template.JSEscaper, "urlquery": template.URLQueryEscaper,
}

// unboundBuilders are the builders as templates are parsed with them.
var unboundBuilders = func() template.FuncMap {
	funcs := baseFunctions()
	builders := template.FuncMap{}
	for name := range builderCosts {
		fn, ok := funcs[name]
		if !ok {
			fn, ok = textBuiltins[name]
		}
		if !ok {
			panic("builder " + name + " is not a template function")
		}
		builders[name] = fn
	}
	return builders
}()

// bindBuilders gives t the builders that draw on b. Clones of t, made by tpl, keep them.
func (b *binder) bindBuilders(t *template.Template) {
	bound := make(template.FuncMap, len(unboundBuilders))
	for name, fn := range unboundBuilders {
		bound[name] = b.drawing(name, reflect.ValueOf(fn), builderCosts[name])
	}
	t.Funcs(bound)
}

var errorType = reflect.TypeFor[error]()

// mergesInto are the builders that change their first argument.
var mergesInto = map[string]bool{"merge": true, "mustMerge": true, "mergeOverwrite": true, "mustMergeOverwrite": true}

// fmtPooledBytes is the largest buffer fmt keeps for the next print.
const fmtPooledBytes = 64 << 10

// drawing is fn with the same arguments and an error result, that draws cost on b before
// calling fn.
func (b *binder) drawing(name string, fn reflect.Value, cost cost) any {
	t := fn.Type()
	in := make([]reflect.Type, t.NumIn())
	for i := range in {
		in[i] = t.In(i)
	}
	returnsError := t.NumOut() == 2
	result := t.Out(0)
	withError := reflect.FuncOf(in, []reflect.Type{result, errorType}, t.IsVariadic())
	return reflect.MakeFunc(withError, func(args []reflect.Value) []reflect.Value {
		if mergesInto[name] && len(args) > 0 && b.table.isShared(args[0].Interface()) {
			err := fmt.Errorf("%s: %w", name, errSharedData)
			return []reflect.Value{reflect.Zero(result), reflect.ValueOf(&err).Elem()}
		}
		n := cost(call{args: args, variadic: t.IsVariadic(), left: b.left()})
		if err := b.allocate(name, n); err != nil {
			return []reflect.Value{reflect.Zero(result), reflect.ValueOf(&err).Elem()}
		}
		var out []reflect.Value
		if t.IsVariadic() {
			out = fn.CallSlice(args)
		} else {
			out = fn.Call(args)
		}
		if result.Kind() == reflect.String {
			// The string is all that outlives the call (allocation.go).
			b.drop(max(n-out[0].Len(), 0))
		}
		if returnsError {
			return out
		}
		return append(out, reflect.Zero(errorType))
	}).Interface()
}

// The arguments of a call, as costs read them. An interface holding a string, a number,
// a list or a map counts as what it holds.

func (c call) arg(i int) reflect.Value {
	v := c.args[i]
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	return v
}

// str is argument i when it is a string, "" otherwise.
func (c call) str(i int) string {
	if v := c.arg(i); v.Kind() == reflect.String {
		return v.String()
	}
	return ""
}

// int is argument i when it is an integer, 0 otherwise.
func (c call) int(i int) int {
	switch v := c.arg(i); v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(max(min(v.Int(), saturated), -saturated))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int(min(v.Uint(), saturated))
	}
	return 0
}

// elementInt is element i of the variadic argument when it is an integer, 0 otherwise.
func (c call) elementInt(i int) int {
	return call{args: []reflect.Value{c.args[len(c.args)-1].Index(i)}}.int(0)
}

// length is how many elements argument i holds when it is a list or a map, 0 otherwise.
func (c call) length(i int) int {
	switch v := c.arg(i); v.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return v.Len()
	}
	return 0
}

// lengths is how many elements the lists and maps among the arguments hold, those
// passed to a variadic parameter included.
func (c call) lengths() int {
	n := 0
	for i := range c.args {
		if c.variadic && i == len(c.args)-1 {
			rest := c.arg(i)
			for j := range rest.Len() {
				n += call{args: []reflect.Value{rest.Index(j)}}.length(0)
			}
			continue
		}
		n += c.length(i)
	}
	return n
}

// count is how many arguments the call has, those passed to a variadic parameter one
// by one.
func (c call) count() int {
	if !c.variadic {
		return len(c.args)
	}
	return len(c.args) - 1 + c.length(len(c.args)-1)
}

// extent measures the arguments from i on.
func (c call) extent(from int) extent {
	var e extent
	for i := from; i < len(c.args); i++ {
		e.add(c.args[i], 0, c.left)
	}
	return e
}

// checkPrint passes on the value an action prints, once the budget allows what printing
// it allocates: fmt writes the whole text of a list or a map into its buffer before the
// output sees a byte of it. fmt keeps its buffers up to 64 KiB for the next print.
func (b *binder) checkPrint(v any) (any, error) {
	if s, ok := v.(string); ok {
		if len(s) <= fmtPooledBytes {
			return v, nil
		}
		return v, b.allocate("printing the value", len(s))
	}
	e := measure(reflect.ValueOf(v), b.left())
	return v, b.allocate("printing the value", times(fmtPerByte, e.bytes)+times(fmtPerNode, e.nodes))
}
