package render

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/template/parse"
)

// Warning is something a blueprint author should look at; the blueprint still works.
type Warning struct {
	// Template names the template, or is "valuesSchema", "renderLimits" or "serves"
	// (with no line).
	Template string
	Line     int
	Message  string
}

func (w Warning) String() string {
	if w.Template == valuesSchemaTemplate || w.Template == renderLimitsField || w.Template == servesField {
		return fmt.Sprintf("%s: %s", w.Template, w.Message)
	}
	return fmt.Sprintf("template %s, line %d: %s", w.Template, w.Line, w.Message)
}

// safeLast are functions whose output cannot break out of a YAML scalar: they quote,
// encode, or produce numbers.
var safeLast = map[string]bool{
	"quote": true, "squote": true, "toJson": true, "toPrettyJson": true, "toRawJson": true,
	"b64enc": true, "sha256sum": true, "sha1sum": true, "adler32sum": true,
	"int": true, "int64": true, "float64": true, "atoi": true, "len": true,
	"add": true, "sub": true, "mul": true, "div": true, "mod": true, "max": true, "min": true,
	"and": true, "or": true, "not": true, "eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"empty": true, "hasKey": true, "kindIs": true, "typeIs": true,
}

// Lint reports the places where a template prints tenant values (.Values) into YAML
// unquoted: a value with a newline can add keys, or with "---" whole objects. Such
// objects are refused at render time if they break the namespace or scope rules, but
// nothing stops an extra key. It also reports tpl run on values, which lets tenants
// write templates, .Values paths that the valuesSchema does not have, objects of the
// valuesSchema that take keys they do not list, renderLimits above the caps, and
// serves that promises less than meant (servesWarnings).
func (b *Blueprint) Lint() []Warning {
	warnings := append(b.valuesPathWarnings(), b.openSchemaWarnings()...)
	warnings = append(warnings, b.boundsWarnings...)
	warnings = append(warnings, b.servesWarnings...)
	for _, t := range b.templates.Templates() {
		if t.Tree == nil || t.Tree.Root == nil {
			continue
		}
		l := linter{tree: t.Tree}
		l.walk(t.Tree.Root, false)
		warnings = append(warnings, l.warnings...)
	}
	sort.Slice(warnings, func(i, j int) bool {
		if warnings[i].Template != warnings[j].Template {
			return warnings[i].Template < warnings[j].Template
		}
		if warnings[i].Line != warnings[j].Line {
			return warnings[i].Line < warnings[j].Line
		}
		return warnings[i].Message < warnings[j].Message
	})
	return dedupe(warnings)
}

type linter struct {
	tree     *parse.Tree
	warnings []Warning
}

// walk visits nodes; dotIsValues is true inside a range or with over .Values, where
// the dot itself is tenant data.
func (l *linter) walk(node parse.Node, dotIsValues bool) {
	switch n := node.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, child := range n.Nodes {
			l.walk(child, dotIsValues)
		}
	case *parse.ActionNode:
		pipe := asWritten(n.Pipe)
		l.checkTpl(pipe, dotIsValues)
		if len(pipe.Decl) == 0 && usesValues(pipe, dotIsValues) && !endsSafely(pipe) {
			l.warn(n, fmt.Sprintf("{{ %s }} is printed into YAML unquoted: a tenant value with a newline or \"---\" can add keys or objects; pipe it to quote (strings), int (numbers) or toYaml | nindent (structures)", pipe))
		}
	case *parse.IfNode:
		l.walk(n.List, dotIsValues)
		l.walk(n.ElseList, dotIsValues)
	case *parse.RangeNode:
		l.walk(n.List, dotIsValues || usesValues(n.Pipe, dotIsValues))
		l.walk(n.ElseList, dotIsValues)
	case *parse.WithNode:
		l.walk(n.List, dotIsValues || usesValues(n.Pipe, dotIsValues))
		l.walk(n.ElseList, dotIsValues)
	}
}

func (l *linter) checkTpl(pipe *parse.PipeNode, dotIsValues bool) {
	for _, cmd := range pipe.Cmds {
		if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok && id.Ident == "tpl" && usesValues(&parse.PipeNode{Cmds: []*parse.CommandNode{cmd}}, dotIsValues) {
			l.warn(pipe, fmt.Sprintf("tpl runs {{ %s }} as a template: tenants who set it can call any template function", pipe))
		}
	}
}

func (l *linter) warn(node parse.Node, message string) {
	location, _ := l.tree.ErrorContext(node)
	name, line := splitLocation(location)
	l.warnings = append(l.warnings, Warning{Template: name, Line: line, Message: message})
}

// splitLocation reads "name:line:col" as ErrorContext writes it.
func splitLocation(location string) (string, int) {
	parts := strings.Split(location, ":")
	if len(parts) < 3 {
		return location, 0
	}
	line, _ := strconv.Atoi(parts[len(parts)-2])
	return strings.Join(parts[:len(parts)-2], ":"), line
}

// usesValues tells whether a pipeline reads .Values (or the dot, where the dot is values).
func usesValues(pipe *parse.PipeNode, dotIsValues bool) bool {
	for _, cmd := range pipe.Cmds {
		for _, arg := range cmd.Args {
			if readsValues(arg, dotIsValues) {
				return true
			}
		}
	}
	return false
}

func readsValues(node parse.Node, dotIsValues bool) bool {
	switch n := node.(type) {
	case *parse.FieldNode:
		return n.Ident[0] == "Values" || dotIsValues
	case *parse.VariableNode:
		return len(n.Ident) > 1 && n.Ident[0] == "$" && n.Ident[1] == "Values"
	case *parse.DotNode:
		return dotIsValues
	case *parse.ChainNode:
		return readsValues(n.Node, dotIsValues)
	case *parse.PipeNode:
		return usesValues(n, dotIsValues)
	}
	return false
}

// endsSafely tells whether the last function of a pipeline makes its output safe, or
// the pipeline indents a toYaml block.
func endsSafely(pipe *parse.PipeNode) bool {
	last := pipe.Cmds[len(pipe.Cmds)-1]
	id, ok := last.Args[0].(*parse.IdentifierNode)
	if !ok {
		return false
	}
	if safeLast[id.Ident] {
		return true
	}
	if id.Ident == "nindent" || id.Ident == "indent" {
		for _, cmd := range pipe.Cmds {
			if first, ok := cmd.Args[0].(*parse.IdentifierNode); ok && (first.Ident == "toYaml" || first.Ident == "include") {
				return true
			}
		}
	}
	return false
}

func dedupe(warnings []Warning) []Warning {
	var out []Warning
	for i, w := range warnings {
		if i == 0 || w != warnings[i-1] {
			out = append(out, w)
		}
	}
	return out
}
