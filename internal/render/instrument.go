package render

import (
	"reflect"
	"strconv"
	"text/template"
	"text/template/parse"
)

// text/template cannot be interrupted and has no hook for function calls, loops or
// {{ template }}, so every parsed tree is made to count its own execution, with as few
// calls of ours as can be (each costs as much as a template function call):
//
//   - a list of nodes (a template, the body of an if or a with, an else) whose pipelines
//     call functions starts with {{ if _countCalls N }}{{ end }}, which draws the N
//     calls of those pipelines (calls that an error, a break or and/or skip included);
//   - the pipeline of every range ends with _countIterations N, which draws the
//     iterations to come, each one and the N calls of the body's pipelines, and passes
//     the value on unchanged;
//   - {{ if _enterTemplate }}{{ end }} and {{ if _leaveTemplate }}{{ end }} surround every
//     {{ template }}, to bound the nesting;
//   - the pipeline of every action that prints ends with _checkPrint, which draws what
//     printing its value allocates and passes the value on unchanged; but for a pipeline
//     whose last function returns a string, which the function drew if it was a builder.
//
// An empty {{ if }} prints nothing and declares no variable: output does not change. The
// binder gives these names their meaning per render (see binder.bind). Range bodies
// kept between renders (range_memo.go) are wrapped before, and counted as written.
const (
	callsFunction      = "_countCalls"
	iterationsFunction = "_countIterations"
	enterFunction      = "_enterTemplate"
	leaveFunction      = "_leaveTemplate"
	printFunction      = "_checkPrint"
)

// instrument adds the counting to the trees of templates, but for those in skip: trees
// already instrumented, which other renders may be executing.
func instrument(templates []*template.Template, skip map[*parse.Tree]bool) {
	done := map[*parse.Tree]bool{}
	for _, t := range templates {
		if t.Tree == nil || skip[t.Tree] || done[t.Tree] {
			continue
		}
		done[t.Tree] = true
		countAtStart(t.Root)
	}
}

// countAtStart instruments list and makes it draw the calls of its pipelines when it
// starts.
func countAtStart(list *parse.ListNode) {
	if calls := instrumentList(list); calls > 0 {
		list.Nodes = append([]parse.Node{emptyIf(list.Pos, command(list.Pos, callsFunction, number(list.Pos, calls)))}, list.Nodes...)
	}
}

// instrumentList instruments what list holds and returns the calls of its own pipelines,
// for whoever runs the list to draw.
func instrumentList(list *parse.ListNode) int {
	if list == nil {
		return 0
	}
	calls := 0
	nodes := make([]parse.Node, 0, len(list.Nodes))
	for _, node := range list.Nodes {
		switch n := node.(type) {
		case *parse.ActionNode:
			calls += countCalls(n.Pipe)
			if len(n.Pipe.Decl) == 0 && !givesString(n.Pipe) {
				n.Pipe.Cmds = append(n.Pipe.Cmds, command(n.Pos, printFunction))
			}
		case *parse.IfNode:
			calls += countCalls(n.Pipe)
			countAtStart(n.List)
			countAtStart(n.ElseList)
		case *parse.WithNode:
			calls += countCalls(n.Pipe)
			countAtStart(n.List)
			countAtStart(n.ElseList)
		case *parse.RangeNode:
			calls += countCalls(n.Pipe)
			perIteration := 1 + instrumentList(n.List)
			count := command(n.Pos, iterationsFunction, number(n.Pos, perIteration))
			if last := len(n.Pipe.Cmds) - 1; isCallOf(n.Pipe.Cmds[last], keptRangeFunction) {
				// Counted on the list as written, before the memo's runs replace elements.
				n.Pipe.Cmds = append(n.Pipe.Cmds[:last:last], count, n.Pipe.Cmds[last])
			} else {
				n.Pipe.Cmds = append(n.Pipe.Cmds, count)
			}
			countAtStart(n.ElseList)
		case *parse.TemplateNode:
			calls += countCalls(n.Pipe)
			nodes = append(nodes, emptyIf(n.Pos, command(n.Pos, enterFunction)), n, emptyIf(n.Pos, command(n.Pos, leaveFunction)))
			continue
		}
		nodes = append(nodes, node)
	}
	list.Nodes = nodes
	return calls
}

// isCallOf tells whether cmd calls function.
func isCallOf(cmd *parse.CommandNode, function string) bool {
	id, ok := cmd.Args[0].(*parse.IdentifierNode)
	return ok && id.Ident == function
}

// givesString tells whether the last command of pipe calls a function that returns a
// string.
func givesString(pipe *parse.PipeNode) bool {
	last := pipe.Cmds[len(pipe.Cmds)-1]
	id, ok := last.Args[0].(*parse.IdentifierNode)
	return ok && stringFunctions[id.Ident]
}

// stringFunctions are the template functions that return a string.
var stringFunctions = func() map[string]bool {
	names := map[string]bool{}
	for _, funcs := range []template.FuncMap{baseFunctions(), textBuiltins} {
		for name, fn := range funcs {
			names[name] = reflect.TypeOf(fn).Out(0).Kind() == reflect.String
		}
	}
	return names
}()

// asWritten is the pipeline of an action as its author wrote it, without the
// _checkPrint the instrumentation added.
func asWritten(pipe *parse.PipeNode) *parse.PipeNode {
	last := pipe.Cmds[len(pipe.Cmds)-1]
	if id, ok := last.Args[0].(*parse.IdentifierNode); !ok || id.Ident != printFunction {
		return pipe
	}
	written := *pipe
	written.Cmds = pipe.Cmds[:len(pipe.Cmds)-1]
	return &written
}

// countCalls is how many functions a pipeline calls: its identifiers, nested pipelines
// included.
func countCalls(pipe *parse.PipeNode) int {
	if pipe == nil {
		return 0
	}
	calls := 0
	for _, cmd := range pipe.Cmds {
		for _, arg := range cmd.Args {
			switch a := arg.(type) {
			case *parse.IdentifierNode:
				calls++
			case *parse.PipeNode:
				calls += countCalls(a)
			case *parse.ChainNode:
				if p, ok := a.Node.(*parse.PipeNode); ok {
					calls += countCalls(p)
				}
			}
		}
	}
	return calls
}

func number(pos parse.Pos, n int) *parse.NumberNode {
	return &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, IsInt: true, Int64: int64(n), Text: strconv.Itoa(n)}
}

// command calls function with args at pos: an error of the function is reported at the
// line of pos.
func command(pos parse.Pos, function string, args ...parse.Node) *parse.CommandNode {
	return &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: append([]parse.Node{parse.NewIdentifier(function).SetPos(pos)}, args...)}
}

// emptyIf is {{ if cmd }}{{ end }} at pos.
func emptyIf(pos parse.Pos, cmd *parse.CommandNode) *parse.IfNode {
	return &parse.IfNode{BranchNode: parse.BranchNode{
		NodeType: parse.NodeIf,
		Pos:      pos,
		Pipe:     &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}},
		List:     &parse.ListNode{NodeType: parse.NodeList, Pos: pos},
	}}
}
