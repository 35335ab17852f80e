package render

import (
	"strings"
	"sync/atomic"
	"text/template"
	"text/template/parse"
)

// A Gateway of thousands of routes is rendered again for each route's edit, and a
// template that prints every match of the route table spends most of that render
// printing what it printed the last time. So a range over the matches (a host's
// matches) or the route verdicts (the table's routes) whose body reads nothing but its
// element keeps what the body printed for each element, and prints it again for an
// element the table memo hands out unchanged (the same shared, read-only data):
//
//	{{ range X | _keptRange ID }}{{ if _printedBefore ID . }}{{ else }}BODY{{ if _printed ID . }}{{ end }}{{ end }}{{ end }}
//
// _keptRange hands the range each run of elements whose output the memo kept as one
// keptRun, and the other elements as they are: an edit among thousands of matches runs
// the body a few times rather than once per match, each call of a template function
// costing a microsecond. _printedBefore writes what BODY printed for a run or an
// element, if the memo kept it, and is true; else it notes where BODY's output starts,
// and _printed keeps it. The body stays
// where it was: an element the memo did not hand out (offline, another list) runs it as
// written. A body reads nothing but its element when it calls only functions whose
// result depends on their arguments alone (pureFunctions), reads no variable but its
// element and those it declares, assigns none of the others, calls no template, and
// breaks or continues only loops of its own.
const (
	keptRangeFunction     = "_keptRange"
	printedBeforeFunction = "_printedBefore"
	printedFunction       = "_printed"
)

// rangeBodies numbers the bodies kept, across every blueprint parsed: the memo holds
// what each printed by its number, and a blueprint's new generation has new bodies.
var rangeBodies atomic.Int64

// keptLists are the last fields of the lists whose items the table memo shares: a
// host's matches, and the table's routes (the verdicts).
var keptLists = map[string]bool{"matches": true, "routes": true}

// keepRangeBodies wraps the bodies of ranges over keptLists that read nothing but
// their element, in every tree of templates.
func keepRangeBodies(templates []*template.Template) {
	done := map[*parse.Tree]bool{}
	for _, t := range templates {
		if t.Tree == nil || done[t.Tree] {
			continue
		}
		done[t.Tree] = true
		wrapRanges(t.Root)
	}
}

func wrapRanges(list *parse.ListNode) {
	if list == nil {
		return
	}
	for _, node := range list.Nodes {
		switch n := node.(type) {
		case *parse.IfNode:
			wrapRanges(n.List)
			wrapRanges(n.ElseList)
		case *parse.WithNode:
			wrapRanges(n.List)
			wrapRanges(n.ElseList)
		case *parse.RangeNode:
			wrapRanges(n.List)
			wrapRanges(n.ElseList)
			if rangesOverKeptList(n.Pipe) && readsOnlyItsElement(n) {
				id := int(rangeBodies.Add(1))
				n.List = keptBody(n.Pos, id, n.List)
				n.Pipe.Cmds = append(n.Pipe.Cmds, command(n.Pos, keptRangeFunction, number(n.Pos, id)))
			}
		}
	}
}

// rangesOverKeptList tells whether pipe is a list whose last field is one of keptLists.
func rangesOverKeptList(pipe *parse.PipeNode) bool {
	if len(pipe.Cmds) != 1 || len(pipe.Cmds[0].Args) != 1 {
		return false
	}
	var idents []string
	switch n := pipe.Cmds[0].Args[0].(type) {
	case *parse.FieldNode:
		idents = n.Ident
	case *parse.VariableNode:
		idents = n.Ident[1:]
	case *parse.ChainNode:
		idents = n.Field
	}
	return len(idents) > 0 && keptLists[idents[len(idents)-1]]
}

// keptBody is body wrapped to print what it printed before for an element the memo
// kept, under number id.
func keptBody(pos parse.Pos, id int, body *parse.ListNode) *parse.ListNode {
	dot := &parse.DotNode{NodeType: parse.NodeDot, Pos: pos}
	wrapped := emptyIf(pos, command(pos, printedBeforeFunction, number(pos, id), dot))
	wrapped.ElseList = &parse.ListNode{NodeType: parse.NodeList, Pos: pos, Nodes: append(body.Nodes,
		emptyIf(pos, command(pos, printedFunction, number(pos, id), dot)))}
	return &parse.ListNode{NodeType: parse.NodeList, Pos: pos, Nodes: []parse.Node{wrapped}}
}

// readsOnlyItsElement tells whether the body of r reads nothing but r's element.
func readsOnlyItsElement(r *parse.RangeNode) bool {
	vars := map[string]bool{}
	if decl := r.Pipe.Decl; len(decl) == 1 {
		vars[decl[0].Ident[0]] = true // the element; with two, the first is the index
	} else if len(decl) == 2 {
		vars[decl[1].Ident[0]] = true
	}
	return pureList(r.List, vars, false)
}

// pureList tells whether list, where vars are the variables in scope that hold (parts
// of) the element, reads nothing else; inLoop says whether a range of the body holds
// it, which break and continue may then end.
func pureList(list *parse.ListNode, vars map[string]bool, inLoop bool) bool {
	if list == nil {
		return true
	}
	scope := make(map[string]bool, len(vars))
	for name := range vars {
		scope[name] = true
	}
	for _, node := range list.Nodes {
		switch n := node.(type) {
		case *parse.TextNode, *parse.CommentNode:
		case *parse.ActionNode:
			if !purePipe(n.Pipe, scope) {
				return false
			}
		case *parse.IfNode:
			if !pureBranch(&n.BranchNode, scope, inLoop) {
				return false
			}
		case *parse.WithNode:
			if !pureBranch(&n.BranchNode, scope, inLoop) {
				return false
			}
		case *parse.RangeNode:
			inner := map[string]bool{}
			for name := range scope {
				inner[name] = true
			}
			if !purePipe(n.Pipe, inner) || !pureList(n.List, inner, true) || !pureList(n.ElseList, scope, inLoop) {
				return false
			}
		case *parse.BreakNode, *parse.ContinueNode:
			if !inLoop {
				return false
			}
		default: // {{ template }}, and anything newer
			return false
		}
	}
	return true
}

// pureBranch tells whether an if or a with reads nothing but what vars hold.
func pureBranch(b *parse.BranchNode, vars map[string]bool, inLoop bool) bool {
	inner := map[string]bool{}
	for name := range vars {
		inner[name] = true
	}
	return purePipe(b.Pipe, inner) && pureList(b.List, inner, inLoop) && pureList(b.ElseList, inner, inLoop)
}

// purePipe tells whether pipe reads nothing but dot and vars and calls only
// pureFunctions; the variables it declares join vars, and it may assign only those.
func purePipe(pipe *parse.PipeNode, vars map[string]bool) bool {
	if pipe == nil {
		return true
	}
	for _, cmd := range pipe.Cmds {
		for _, arg := range cmd.Args {
			if !pureArg(arg, vars) {
				return false
			}
		}
	}
	for _, v := range pipe.Decl {
		if pipe.IsAssign && !vars[v.Ident[0]] {
			return false
		}
		vars[v.Ident[0]] = true
	}
	return true
}

func pureArg(node parse.Node, vars map[string]bool) bool {
	switch n := node.(type) {
	case *parse.FieldNode, *parse.DotNode, *parse.NilNode, *parse.BoolNode, *parse.NumberNode, *parse.StringNode:
		return true
	case *parse.IdentifierNode:
		return pureFunctions[n.Ident]
	case *parse.VariableNode:
		return vars[n.Ident[0]]
	case *parse.ChainNode:
		return pureArg(n.Node, vars)
	case *parse.PipeNode:
		return purePipe(n, vars)
	}
	return false
}

// pureFunctions are the functions whose result depends on their arguments alone and
// that change nothing: text/template's own, and sprig's for strings, numbers, lists and
// encodings that a body printing a route needs.
var pureFunctions = map[string]bool{
	"and": true, "or": true, "not": true, "len": true, "index": true, "slice": true, "eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"print": true, "printf": true, "println": true, "html": true, "js": true, "urlquery": true,
	"quote": true, "squote": true, "lower": true, "upper": true, "title": true, "trim": true, "trimPrefix": true, "trimSuffix": true, "trimAll": true,
	"replace": true, "contains": true, "hasPrefix": true, "hasSuffix": true, "trunc": true, "indent": true, "nindent": true, "repeat": true,
	"default": true, "empty": true, "coalesce": true, "ternary": true, "toString": true, "toJson": true, "toYaml": true,
	"int": true, "int64": true, "float64": true, "add": true, "sub": true, "mul": true, "div": true, "mod": true, "max": true, "min": true,
	"join": true, "first": true, "last": true, "has": true, "hasKey": true, "get": true, "dig": true, "sortAlpha": true,
	"b64enc": true, "sha256sum": true, "kebabcase": true, "snakecase": true,
}

// pendingPrint is a kept body running for an element the memo did not have it for: what
// it prints from start of out on is kept for data.
type pendingPrint struct {
	body  int
	data  uintptr
	out   *output
	start int
}

// printedBefore writes what body printed for dot the last time, and is true, when dot
// is data the table memo shares and it kept that; else it notes where the body's output
// starts, for printed.
func (b *binder) printedBefore(body int, dot any) (bool, error) {
	if run, ok := dot.(*keptRun); ok {
		for _, text := range run.texts {
			if _, err := b.out.WriteString(text); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	data, shared := b.table.address(dot)
	if !shared {
		return false, nil
	}
	if text, kept := b.table.printedFor(data, body); kept {
		_, err := b.out.WriteString(text)
		return true, err
	}
	b.pending = append(b.pending, pendingPrint{body: body, data: data, out: b.out, start: b.out.text.Len()})
	return false, nil
}

// printed keeps what body printed for dot since printedBefore noted where it started.
func (b *binder) printed(body int, dot any) bool {
	n := len(b.pending)
	if n == 0 {
		return false
	}
	p := b.pending[n-1]
	if data, _ := b.table.address(dot); p.body != body || p.data != data || p.out != b.out {
		return false
	}
	b.pending = b.pending[:n-1]
	// A copy: the output's buffer is the whole render's.
	b.table.keepPrinted(p.data, body, strings.Clone(p.out.text.String()[p.start:]))
	return false
}

// keptRun is consecutive elements of a kept range whose output the memo kept: what body
// printed for each, in order.
type keptRun struct {
	texts []string
}

// keptRange is what a range kept as body goes over: items with each run of elements
// whose output the memo kept for body made one keptRun; items itself when it kept none
// (or items is no list the memo hands out). The range's iterations were counted on
// items before: a render draws the same budget whatever the memo holds.
func (b *binder) keptRange(body int, items any) any {
	list, ok := items.([]any)
	if !ok || b.table == nil {
		return items
	}
	var out []any
	var run *keptRun
	for i, item := range list {
		text, kept := b.table.printedOf(item, body)
		switch {
		case kept && run != nil:
			run.texts = append(run.texts, text)
		case kept:
			if out == nil {
				out = append(make([]any, 0, i+8), list[:i]...)
			}
			run = &keptRun{texts: []string{text}}
			out = append(out, run)
		default:
			run = nil
			if out != nil {
				out = append(out, item)
			}
		}
	}
	if out == nil {
		return items
	}
	return out
}
