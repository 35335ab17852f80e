package render

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// The budget of bytes built bounds what the functions of one render allocate building
// text, lists and maps: every function whose result or work can be much larger than its
// arguments (see builders.go), and fmt printing a value. A tenant's number within a
// valuesSchema's bounds, or a string doubled ten times, builds gigabytes before the
// output limit sees a byte, so each function draws what it is about to allocate, computed
// from its arguments, and a render past the budget stops before allocating.
//
// The budget is a running sum of what was built, not of what is held: nothing is given
// back when a value becomes garbage. The render cannot see when that is (a variable
// reassigned in a loop, a value set into a map the caller holds, a list that append
// copied), and an include's work may escape it through sprig's set, so crediting a draw
// back could let a render hold more than its budget. The sum bounds what the render
// holds at any moment, and also what the garbage collector has to reclaim after it.
// The outputs (include and tpl too) stay within the rendered bytes, refused before they
// grow, and their buffers allocate at most four times that: with the default limits
// (bounds.go), a render allocates at most 64 MiB of text, lists and maps.

// Renders run at once, one per worker, and each may allocate up to its budget, so what
// they hold together is bounded too. Each render holds its first ownAllocatedBytes
// freely; past that, it draws on a pool every render shares, and a draw the pool cannot
// give stops the render as busy, which is retried with backoff. A tenant's renders near
// their budgets can then fill only the pool, and other renders, which stay within their
// own share, go on untouched.
//
// What a render holds, as the pool sees it, is what it built and what parsing its output
// costs, less one thing that is sure to be garbage: the work of a function that returns
// a string beyond the string itself (the buffers of toJson, printf or nindent), given
// back as soon as it returns. Such functions keep nothing, and the string is all the
// caller can hold of their work. A large Gateway's render, which builds and drops a
// string per route, then holds what it keeps rather than all it built.
const (
	ownAllocatedBytes    = 4 << 20
	sharedAllocatedBytes = 128 << 20
)

// sharedAllocated is what the renders running now drew from the shared pool.
var sharedAllocated atomic.Int64

// ErrBusy is a render stopped because the renders running at the same time had drawn
// the shared pool: it depends on them, not on its input, so a controller retries it.
var ErrBusy = errors.New("render memory busy")

// allocate draws n bytes that what (a function, or printing a value) is about to build,
// on the render's budget of bytes built.
func (b *binder) allocate(what string, n int) error {
	if left := b.left(); n > left {
		return &limitError{message: fmt.Sprintf("%s would allocate %s, over the %s left of the render's %s budget of bytes built", what, byteSize(n), byteSize(left), mebibytes(b.limits.builtBytes))}
	}
	if err := b.share(what, n); err != nil {
		return err
	}
	b.built += n
	return nil
}

// share counts n more bytes the render holds, and takes what it then holds beyond its
// own share from the shared pool.
func (b *binder) share(what string, n int) error {
	if need := max(b.held+n-ownAllocatedBytes, 0) - b.shared; need > 0 {
		if sharedAllocated.Add(int64(need)) > sharedAllocatedBytes {
			sharedAllocated.Add(-int64(need))
			return &limitError{busy: true, message: fmt.Sprintf("%s would allocate %s while the renders running now hold the %d MiB they share; retried", what, byteSize(n), sharedAllocatedBytes>>20)}
		}
		b.shared += need
	}
	b.held += n
	return nil
}

// drop counts n bytes the render no longer holds, and gives back to the shared pool
// what it drew beyond what it now holds past its own share. What it built stays drawn
// on its own budget.
func (b *binder) drop(n int) {
	b.held -= n
	if over := b.shared - max(b.held-ownAllocatedBytes, 0); over > 0 {
		sharedAllocated.Add(-int64(over))
		b.shared -= over
	}
}

// release gives back what the render drew from the shared pool; every render ends with it.
func (b *binder) release() {
	sharedAllocated.Add(-int64(b.shared))
	b.shared = 0
}

// parseBytesPerNode is what parsing the output costs per YAML node, at most: 240 bytes
// for the items of a flow list, 600 for the keys of a mapping, as measured.
const parseBytesPerNode = 600

// drawParse draws what parsing a template's output into objects will allocate: a node
// per line break, comma and bracket outside block scalars and one for the first, and
// twice the bytes of block scalars' lines (parsedSize). It has a budget of its own,
// apart from the bytes built: a node for every separator the render may write and for
// each of up to parsedTemplates templates, which the separators' own bound keeps it
// within, and twice what it may write; past it, as past the shared pool, the render
// stops before parsing.
func (b *binder) drawParse(text string) error {
	nodes, scalarBytes := parsedSize([]byte(text))
	n := times(nodes, parseBytesPerNode) + times(scalarBytes, parseBytesPerScalarByte)
	budget := times(b.limits.separators+parsedTemplates, parseBytesPerNode) + times(b.limits.renderedBytes, parseBytesPerScalarByte)
	if left := budget - b.parsed; n > left {
		return &limitError{message: fmt.Sprintf("parsing the output would allocate %s, over the %s left of the render's %s for parsing", byteSize(n), byteSize(left), mebibytes(budget))}
	}
	if err := b.share("parsing the output", n); err != nil {
		return err
	}
	b.parsed += n
	return nil
}

// parseBytesPerScalarByte is what parsing a byte of a block scalar costs: the scalar's
// string, and the parser's buffer it is read through.
const parseBytesPerScalarByte = 2

// parsedTemplates bounds the templates of one render: the API takes at most 64 in a
// set, and a Gateway's status template besides.
const parsedTemplates = 65

// left is what remains of the budget of bytes built, never negative: measuring a value
// further is pointless.
func (b *binder) left() int { return max(b.limits.builtBytes-b.built, 0) }

func byteSize(n int) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// saturated stands for any size past every budget; sizes computed from tenant numbers
// stop there rather than overflow.
const saturated = 1 << 60

// times is a*b, 0 for a negative factor, at most saturated.
func times(a, b int) int {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > saturated/b {
		return saturated
	}
	return a * b
}
