package render

import (
	"errors"
	"fmt"
	"reflect"
	"time"
)

// Limits on the work of one render. Values are tenant data: numbers within a
// valuesSchema's bounds, fed to nested loops, must not keep the controller's workers
// busy. text/template cannot be interrupted from outside, so a render stops itself:
// every call of a template function, every iteration of a range and every
// {{ template }} is an operation, and every draw of operations (see instrument.go)
// checks the budget and the clock. The budgets of operations and time are the render's
// limits (bounds.go): a base of 1,000,000 operations and 2 s, which take 0.1 s (empty
// iterations) to 2 s (includes in a loop) on a busy 2-core machine, and more for every
// route match the render is given.
const (
	// maxTemplateDepth bounds how deep templates nest ({{ template }}, include and tpl),
	// as Helm bounds include. text/template's own bound on {{ template }}, 100,000,
	// takes a second and 128 MiB of stack, and every include starts it again.
	maxTemplateDepth = 1000
	// tplOperations is what one tpl costs: it copies the blueprint's templates and
	// function map and parses its text, which takes as long as some 500 calls.
	tplOperations = 500
	// tplPerByte bounds what tpl allocates for a byte of the text it parses: lexer
	// items and parse nodes.
	tplPerByte = 64
)

// clock tells the time; tests replace it to pass the deadline without waiting.
var clock = time.Now

// ErrTimeLimit is a render stopped by its time limit. Unlike the other limits it depends
// on how busy the machine is, so a controller retries it rather than wait for the input
// to change.
var ErrTimeLimit = errors.New("render time limit")

// limitError is a render stopped by its budget of operations, time or depth.
type limitError struct {
	message string
	timeout bool
	busy    bool
}

func (e *limitError) Error() string { return e.message }

func (e *limitError) Is(target error) bool {
	return (e.timeout && target == ErrTimeLimit) || (e.busy && target == ErrBusy)
}

// spend draws n operations on the render's budget.
func (b *binder) spend(n int) error {
	b.operations += n
	if b.operations > b.limits.operations {
		return &limitError{message: fmt.Sprintf("render exceeded its budget of %d operations (loops over until/seq/ranges nested too deep?)", b.limits.operations)}
	}
	if clock().After(b.deadline) {
		return &limitError{message: fmt.Sprintf("render exceeded its time limit of %s (a loop over costly functions?)", b.limits.time), timeout: true}
	}
	return nil
}

// The functions the instrumentation calls (see instrument.go). Those in an empty {{ if }}
// return false.

func (b *binder) countCalls(calls int) (bool, error) { return false, b.spend(calls) }

// countIterations ends every range pipeline: the range over v draws its iterations,
// each of perIteration operations, before it starts.
func (b *binder) countIterations(perIteration int, v any) (any, error) {
	return v, b.spend(times(iterations(reflect.ValueOf(v)), perIteration))
}

// iterations is how many times a range over v runs its body, at most saturated.
func iterations(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Array, reflect.Slice, reflect.Map:
		return v.Len()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(max(0, min(v.Int(), saturated)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int(min(v.Uint(), saturated))
	}
	return 0
}

// enterTemplate draws one operation for the {{ template }} it precedes, as include
// does for the call.
func (b *binder) enterTemplate() (bool, error) { return false, b.enter(1) }

func (b *binder) leaveTemplate() bool {
	b.leave()
	return false
}

// enter goes one template deeper ({{ template }}, include or tpl), drawing operations.
func (b *binder) enter(operations int) error {
	b.depth++
	if b.depth > maxTemplateDepth {
		return &limitError{message: fmt.Sprintf("templates nested more than %d deep (a template, include or tpl that calls itself?)", maxTemplateDepth)}
	}
	return b.spend(operations)
}

// leave is not reached when a template fails, but then the whole render fails.
func (b *binder) leave() { b.depth-- }
