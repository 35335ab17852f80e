package render

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/template/parse"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/gatewright/gatewright/internal/values"
)

// valuesPathWarnings reports the .Values paths that templates read and that the
// valuesSchema does not have: a typo such as .Values.imag renders empty, and no render
// error ever points at it. Paths under an object whose keys the schema leaves open
// (additionalProperties, x-kubernetes-preserve-unknown-fields, no properties listed, or
// allOf/anyOf/oneOf) are not checked. Without a valuesSchema nothing is.
func (b *Blueprint) valuesPathWarnings() []Warning {
	schema := b.schemaProps()
	if schema == nil {
		return nil
	}
	var warnings []Warning
	for _, t := range b.templates.Templates() {
		if t.Tree == nil || t.Tree.Root == nil {
			continue
		}
		w := pathWalker{tree: t.Tree, schema: schema}
		w.walk(t.Tree.Root, rootScope)
		warnings = append(warnings, w.warnings...)
	}
	return warnings
}

// schemaProps is the valuesSchema as written, nil when the blueprint has none.
func (b *Blueprint) schemaProps() *apiextensionsv1.JSONSchemaProps {
	if b.valuesSchemaSource == nil {
		return nil
	}
	var schema apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(b.valuesSchemaSource.Raw, &schema); err != nil {
		return nil // Parse refuses such a schema before a Blueprint exists
	}
	return &schema
}

// scope is what the dot stands for: the template's data (root), a part of .Values
// (path, "[]" for an item of a list or map), or something else.
type scope struct {
	kind scopeKind
	path []string
}

type scopeKind int

const (
	otherScope scopeKind = iota
	rootKind
	valuesKind
)

var rootScope = scope{kind: rootKind}

// pathWalker follows the .Values paths of a template: it warns about those the schema
// lacks, when it has a schema, and records in known what the template reads.
type pathWalker struct {
	tree     *parse.Tree
	schema   *apiextensionsv1.JSONSchemaProps // nil: no warnings
	warnings []Warning
	known    values.Known
}

func (w *pathWalker) walk(node parse.Node, dot scope) {
	switch n := node.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, child := range n.Nodes {
			w.walk(child, dot)
		}
	case *parse.ActionNode:
		w.pipe(n.Pipe, dot)
	case *parse.TemplateNode:
		// {{ template "x" . }} hands over the data, which the walk of x follows.
		if n.Pipe != nil && !(len(n.Pipe.Cmds) == 1 && len(n.Pipe.Cmds[0].Args) == 1 && isRoot(n.Pipe.Cmds[0].Args[0], dot)) {
			w.pipe(n.Pipe, dot)
		}
	case *parse.IfNode:
		w.condition(n.Pipe, dot)
		w.walk(n.List, dot)
		w.walk(n.ElseList, dot)
	case *parse.WithNode:
		w.condition(n.Pipe, dot)
		w.walk(n.List, w.pipeScope(n.Pipe, dot, false))
		w.walk(n.ElseList, dot)
	case *parse.RangeNode:
		w.pipe(n.Pipe, dot)
		w.walk(n.List, w.pipeScope(n.Pipe, dot, true))
		w.walk(n.ElseList, dot)
	}
}

// condition is the pipeline of an if or a with: a bare path there tests the value and
// reads nothing below it (inside a with, the body's own paths say what it reads).
func (w *pathWalker) condition(pipe *parse.PipeNode, dot scope) {
	if len(pipe.Decl) == 0 && len(pipe.Cmds) == 1 && len(pipe.Cmds[0].Args) == 1 {
		if path, ok := valuesPath(pipe.Cmds[0].Args[0], dot); ok {
			w.check(pipe.Cmds[0].Args[0], path)
			w.known.Nodes = append(w.known.Nodes, path)
			return
		}
	}
	w.pipe(pipe, dot)
}

// pipeScope is the dot inside {{ with PIPE }} or, for items, {{ range PIPE }}: a part
// of .Values when the pipeline is just a path into it, the template's data when it is
// just $ or that data.
func (w *pathWalker) pipeScope(pipe *parse.PipeNode, dot scope, items bool) scope {
	cmds := pipe.Cmds
	if items {
		// Added by keepRangeBodies and instrument, they pass the list on.
		for _, added := range []string{keptRangeFunction, iterationsFunction} {
			if last := len(cmds) - 1; last > 0 && isCallOf(cmds[last], added) {
				cmds = cmds[:last]
			}
		}
	}
	if len(cmds) != 1 || len(cmds[0].Args) != 1 {
		return scope{}
	}
	if !items && isRoot(cmds[0].Args[0], dot) {
		return rootScope
	}
	path, ok := valuesPath(cmds[0].Args[0], dot)
	if !ok {
		return scope{}
	}
	if items {
		path = append(path, "[]")
	}
	return scope{kind: valuesKind, path: path}
}

func (w *pathWalker) pipe(pipe *parse.PipeNode, dot scope) {
	for _, cmd := range pipe.Cmds {
		if path, complete, ok := indexPath(cmd, dot); ok {
			if complete {
				w.check(cmd, path)
			}
			w.read(path)
			continue
		}
		function := ""
		if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok {
			function = id.Ident
		}
		if function == printedBeforeFunction || function == printedFunction {
			continue // added by keepRangeBodies: it prints what the body would
		}
		for _, arg := range cmd.Args {
			// The template's data handed to anything but include (whose template is
			// walked on its own) may be read whole: tpl, toYaml, a variable, dict.
			if function != "include" && isRoot(arg, dot) {
				w.known.All = true
			}
			w.arg(arg, dot)
		}
	}
}

func (w *pathWalker) arg(node parse.Node, dot scope) {
	switch n := node.(type) {
	case *parse.FieldNode, *parse.VariableNode:
		if path, ok := valuesPath(n, dot); ok {
			w.check(n, path)
			w.read(path)
		}
	case *parse.DotNode:
		if path, ok := valuesPath(n, dot); ok {
			w.read(path)
		}
	case *parse.ChainNode:
		w.arg(n.Node, dot)
	case *parse.PipeNode:
		w.pipe(n, dot)
	}
}

// read records that the template reads path and what lies below it: printed, passed to
// a function, ranged over or bound to a variable, a value may be read through and through.
func (w *pathWalker) read(path []string) {
	if len(path) == 0 {
		w.known.All = true
		return
	}
	w.known.Subtrees = append(w.known.Subtrees, path)
}

// isRoot tells whether node is the template's data: $, or the dot where it is the data.
func isRoot(node parse.Node, dot scope) bool {
	switch n := node.(type) {
	case *parse.DotNode:
		return dot.kind == rootKind
	case *parse.VariableNode:
		return len(n.Ident) == 1 && n.Ident[0] == "$"
	}
	return false
}

// valuesPath is the .Values path a field or variable reads: .Values.a.b and $.Values.a.b
// from the template's data, .a.b where the dot is a part of .Values.
func valuesPath(node parse.Node, dot scope) ([]string, bool) {
	switch n := node.(type) {
	case *parse.FieldNode:
		switch {
		case dot.kind == rootKind && n.Ident[0] == "Values":
			return slices.Clone(n.Ident[1:]), true
		case dot.kind == valuesKind:
			return append(slices.Clone(dot.path), n.Ident...), true
		}
	case *parse.VariableNode:
		if len(n.Ident) > 1 && n.Ident[0] == "$" && n.Ident[1] == "Values" {
			return slices.Clone(n.Ident[2:]), true
		}
	case *parse.DotNode:
		if dot.kind == valuesKind {
			return slices.Clone(dot.path), true
		}
	}
	return nil, false
}

// indexPath reads {{ index .Values "a" "b" }}: a path into .Values with quoted keys.
// A key that is not quoted ends the path, which is then not complete.
func indexPath(cmd *parse.CommandNode, dot scope) (path []string, complete, ok bool) {
	if len(cmd.Args) < 3 {
		return nil, false, false
	}
	if id, ok := cmd.Args[0].(*parse.IdentifierNode); !ok || id.Ident != "index" {
		return nil, false, false
	}
	path, ok = valuesPath(cmd.Args[1], dot)
	if !ok {
		return nil, false, false
	}
	for _, arg := range cmd.Args[2:] {
		key, ok := arg.(*parse.StringNode)
		if !ok {
			return path, false, true
		}
		path = append(path, key.Text)
	}
	return path, true, true
}

func (w *pathWalker) check(node parse.Node, path []string) {
	if w.schema == nil {
		return
	}
	if problem := missingFromSchema(w.schema, path); problem != "" {
		location, _ := w.tree.ErrorContext(node)
		name, line := splitLocation(location)
		w.warnings = append(w.warnings, Warning{Template: name, Line: line, Message: problem})
	}
}

// missingFromSchema says how path leaves the schema, or "" when the schema has it or
// leaves that part open.
func missingFromSchema(schema *apiextensionsv1.JSONSchemaProps, path []string) string {
	s := schema
	for i, key := range path {
		if s == nil || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 ||
			(s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields) {
			return ""
		}
		open := s.AdditionalProperties
		switch {
		case key == "[]" && s.Items != nil:
			s = s.Items.Schema
		case key == "[]" && open != nil:
			s = open.Schema
		case key == "[]":
			return ""
		case hasProperty(s, key):
			prop := s.Properties[key]
			s = &prop
		case open != nil && (open.Allows || open.Schema != nil):
			s = open.Schema
		case len(s.Properties) == 0 && open == nil && s.Type != "" && s.Type != "object":
			return fmt.Sprintf("%s reads into %s, which the valuesSchema makes a %s", writePath(path[:i+1]), writePath(path[:i]), s.Type)
		case len(s.Properties) == 0 && open == nil:
			return ""
		default:
			return fmt.Sprintf("%s is not in the valuesSchema, so it is always empty%s", writePath(path[:i+1]), suggest(path[:i], key, s.Properties))
		}
	}
	return ""
}

func hasProperty(s *apiextensionsv1.JSONSchemaProps, key string) bool {
	_, ok := s.Properties[key]
	return ok
}

// writePath writes a path as templates read it, items as [].
func writePath(path []string) string {
	var b strings.Builder
	b.WriteString(".Values")
	for _, key := range path {
		if key != "[]" {
			b.WriteString(".")
		}
		b.WriteString(key)
	}
	return b.String()
}

// suggest names the key of properties closest to key, when one is close enough to be
// a typo of it, or else lists them.
func suggest(parent []string, key string, properties map[string]apiextensionsv1.JSONSchemaProps) string {
	names := make([]string, 0, len(properties))
	for name := range properties {
		names = append(names, name)
	}
	slices.Sort(names)
	best := values.Nearest(key, key, names)
	switch {
	case best != "":
		return "; did you mean " + writePath(append(slices.Clone(parent), best)) + "?"
	case len(names) == 0:
		return " (" + writePath(parent) + " takes no keys)"
	}
	return " (" + writePath(parent) + " has " + strings.Join(names, ", ") + ")"
}
