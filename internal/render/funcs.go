package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"text/template/parse"
	"time"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

// removedFunctions are sprig functions a blueprint cannot call. Templates are rendered
// again and again by a controller: anything that reads the environment, the network or
// the clock, or that is random, would leak controller state or make every render differ
// (and so rewrite the objects every time).
var removedFunctions = []string{
	"env", "expandenv", "getHostByName", // the environment and the network
	"now", "ago", "date", "dateInZone", "date_in_zone", "dateModify", "date_modify", "htmlDate", "htmlDateInZone", // the clock
	"randAlphaNum", "randAlpha", "randAscii", "randNumeric", "randBytes", "randInt", "uuidv4", "shuffle", // randomness
	"genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert", "genSelfSignedCertWithKey",
	"genSignedCert", "genSignedCertWithKey", "bcrypt", "htpasswd", "encryptAES", // random keys, salts and IVs
}

// baseFunctions is the function map templates are parsed with. include and tpl are
// placeholders here; every render binds its own (see bindFunctions).
func baseFunctions() template.FuncMap {
	funcs := sprig.TxtFuncMap()
	for _, name := range removedFunctions {
		delete(funcs, name)
	}
	boundSequences(funcs)
	helm := template.FuncMap{
		"toYaml":        toYAML,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"required":      required,
		"fail":          fail,
		"include":       func(string, any) (string, error) { return "", errors.New("include is not bound") },
		"tpl":           func(string, any) (string, error) { return "", errors.New("tpl is not bound") },
	}
	for name, fn := range helm {
		funcs[name] = fn
	}
	return funcs
}

// bindFunctions gives t (a clone of the parsed, instrumented templates, for one render
// at a time) include and tpl functions that execute on t itself, the functions the
// instrumentation calls (see instrument.go) and the builders (see builders.go), with one
// budget for the whole render: of operations, time, nesting, output and allocation. The
// binder makes the outputs of the render's templates; every render starts with reset.
func bindFunctions(t *template.Template) *binder {
	b := &binder{}
	b.bindBuilders(t)
	b.bind(t)
	return b
}

type binder struct {
	// table is the route table data of the render, which no template may change.
	table *TableMemo
	// limits are the render's bounds, for its input (bounds.go).
	limits limits
	// depth is how deep templates are nested now, against maxTemplateDepth.
	depth int
	// operations counts the operations of the render so far, against limits.operations.
	operations int
	deadline   time.Time
	// written counts the bytes the render wrote so far, against limits.renderedBytes,
	// and separators the line breaks, commas and brackets among them, against
	// limits.separators.
	written, separators int
	// out is the output the template running now writes to, and pending the kept
	// range bodies running in it (range_memo.go).
	out     *output
	pending []pendingPrint
	// built counts the bytes the render's builders, and printing its values, built so
	// far, against limits.builtBytes; parsed what parsing its output costs. held is
	// what of both the render may hold now, and shared what of that it drew from the
	// pool all renders share (allocation.go).
	built, parsed, held, shared int
}

// reset gives a render the whole of its limits. The bound functions hold b, not its
// fields, so a clone can serve one render after another.
func (b *binder) reset(l limits) { *b = binder{limits: l, deadline: clock().Add(l.time)} }

func (b *binder) newOutput() *output { return &output{budget: b} }

func (b *binder) bind(t *template.Template) {
	t.Funcs(template.FuncMap{
		callsFunction:         b.countCalls,
		iterationsFunction:    b.countIterations,
		enterFunction:         b.enterTemplate,
		leaveFunction:         b.leaveTemplate,
		printFunction:         b.checkPrint,
		keptRangeFunction:     b.keptRange,
		printedBeforeFunction: b.printedBefore,
		printedFunction:       b.printed,
		"include": func(name string, data any) (string, error) {
			return b.nested(0, func(out *output) error {
				return t.ExecuteTemplate(out, name, data)
			})
		},
		// set and unset are sprig's, but for the route table's shared data.
		"set": func(d map[string]any, key string, value any) (map[string]any, error) {
			if b.table.isShared(d) {
				return nil, fmt.Errorf("set %q: %w", key, errSharedData)
			}
			d[key] = value
			return d, nil
		},
		"unset": func(d map[string]any, key string) (map[string]any, error) {
			if b.table.isShared(d) {
				return nil, fmt.Errorf("unset %q: %w", key, errSharedData)
			}
			delete(d, key)
			return d, nil
		},
		// tpl renders a string as a template, with the blueprint's named templates in
		// scope; templates it defines are visible to its own includes.
		"tpl": func(text string, data any) (string, error) {
			return b.nested(tplOperations, func(out *output) error {
				if err := b.allocate("tpl", times(tplPerByte, len(text))); err != nil {
					return err
				}
				inner, err := t.Clone()
				if err != nil {
					return err
				}
				if inner, err = inner.New(t.Name() + "/tpl").Parse(text); err != nil {
					return err
				}
				instrument(inner.Templates(), treesOf(t))
				b.bind(inner)
				return inner.Execute(out, data)
			})
		},
	})
}

// nested runs an include or a tpl, one template deeper, drawing operations beyond the
// call itself.
func (b *binder) nested(operations int, run func(*output) error) (string, error) {
	if err := b.enter(operations); err != nil {
		return "", err
	}
	defer b.leave()
	out, outer := b.newOutput(), b.out
	out.nested, b.out = true, out
	defer func() { b.out = outer }()
	err := run(out)
	return out.String(), err
}

func treesOf(t *template.Template) map[*parse.Tree]bool {
	trees := map[*parse.Tree]bool{}
	for _, tmpl := range t.Templates() {
		trees[tmpl.Tree] = true
	}
	return trees
}

// authorError carries the message a template author gave to required or fail.
type authorError struct{ message string }

func (e *authorError) Error() string { return e.message }

func required(message string, value any) (any, error) {
	if value == nil {
		return nil, &authorError{message}
	}
	if s, ok := value.(string); ok && s == "" {
		return nil, &authorError{message}
	}
	return value, nil
}

func fail(message string) (string, error) { return "", &authorError{message} }

// The YAML and JSON functions behave as Helm's: errors inside a template do not abort
// it but show up in the output (toYaml gives "", fromYaml an "Error" key).

func toYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(s string) map[string]any {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(s string) []any {
	a := []any{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []any{err.Error()}
	}
	return a
}

func toJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(s string) map[string]any {
	m := map[string]any{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []any {
	a := []any{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []any{err.Error()}
	}
	return a
}
