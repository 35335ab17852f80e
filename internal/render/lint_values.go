package render

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/template/parse"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// valuesPathWarnings reports the .Values paths that templates read and that the
// valuesSchema does not have: a typo such as .Values.imag renders empty, and no render
// error ever points at it. Paths under an object whose keys the schema leaves open
// (additionalProperties, x-kubernetes-preserve-unknown-fields, no properties listed, or
// allOf/anyOf/oneOf) are not checked. Without a valuesSchema nothing is.
func (b *Blueprint) valuesPathWarnings() []Warning {
	if b.valuesSchemaSource == nil {
		return nil
	}
	var schema apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(b.valuesSchemaSource.Raw, &schema); err != nil {
		return nil // Parse refuses such a schema before a Blueprint exists
	}
	var warnings []Warning
	for _, t := range b.templates.Templates() {
		if t.Tree == nil || t.Tree.Root == nil {
			continue
		}
		w := pathWalker{tree: t.Tree, schema: &schema}
		w.walk(t.Tree.Root, rootScope)
		warnings = append(warnings, w.warnings...)
	}
	return warnings
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

type pathWalker struct {
	tree     *parse.Tree
	schema   *apiextensionsv1.JSONSchemaProps
	warnings []Warning
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
		if n.Pipe != nil {
			w.pipe(n.Pipe, dot)
		}
	case *parse.IfNode:
		w.pipe(n.Pipe, dot)
		w.walk(n.List, dot)
		w.walk(n.ElseList, dot)
	case *parse.WithNode:
		w.pipe(n.Pipe, dot)
		w.walk(n.List, w.pipeScope(n.Pipe, dot, false))
		w.walk(n.ElseList, dot)
	case *parse.RangeNode:
		w.pipe(n.Pipe, dot)
		w.walk(n.List, w.pipeScope(n.Pipe, dot, true))
		w.walk(n.ElseList, dot)
	}
}

// pipeScope is the dot inside {{ with PIPE }} or, for items, {{ range PIPE }}: a part
// of .Values when the pipeline is just a path into it.
func (w *pathWalker) pipeScope(pipe *parse.PipeNode, dot scope, items bool) scope {
	cmds := pipe.Cmds
	if last := len(cmds) - 1; items && last > 0 {
		if id, ok := cmds[last].Args[0].(*parse.IdentifierNode); ok && id.Ident == iterationsFunction {
			cmds = cmds[:last] // added by instrument, it passes the value on
		}
	}
	if len(cmds) != 1 || len(cmds[0].Args) != 1 {
		return scope{}
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
		if path, ok := indexPath(cmd, dot); ok {
			w.check(cmd, path)
			continue
		}
		for _, arg := range cmd.Args {
			w.arg(arg, dot)
		}
	}
}

func (w *pathWalker) arg(node parse.Node, dot scope) {
	switch n := node.(type) {
	case *parse.FieldNode, *parse.VariableNode:
		if path, ok := valuesPath(n, dot); ok {
			w.check(n, path)
		}
	case *parse.ChainNode:
		w.arg(n.Node, dot)
	case *parse.PipeNode:
		w.pipe(n, dot)
	}
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
func indexPath(cmd *parse.CommandNode, dot scope) ([]string, bool) {
	if len(cmd.Args) < 3 {
		return nil, false
	}
	if id, ok := cmd.Args[0].(*parse.IdentifierNode); !ok || id.Ident != "index" {
		return nil, false
	}
	path, ok := valuesPath(cmd.Args[1], dot)
	if !ok {
		return nil, false
	}
	for _, arg := range cmd.Args[2:] {
		key, ok := arg.(*parse.StringNode)
		if !ok {
			return nil, false
		}
		path = append(path, key.Text)
	}
	return path, true
}

func (w *pathWalker) check(node parse.Node, path []string) {
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
	best, bestDistance := "", max(1, len(key)/3)+1
	for _, name := range names {
		if d := editDistance(strings.ToLower(key), strings.ToLower(name)); d < bestDistance {
			best, bestDistance = name, d
		}
	}
	switch {
	case best != "":
		return "; did you mean " + writePath(append(slices.Clone(parent), best)) + "?"
	case len(names) == 0:
		return " (" + writePath(parent) + " takes no keys)"
	}
	return " (" + writePath(parent) + " has " + strings.Join(names, ", ") + ")"
}

// editDistance is how many single-byte insertions, deletions, substitutions and swaps
// of neighbours turn a into b (the optimal string alignment distance): the typos of
// keys are mostly one of those.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
