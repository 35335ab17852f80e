package render

import (
	"fmt"
	"strings"
	"text/template"
)

// Limits on what one render may produce. Values are tenant data: a number handed to
// until, or a loop over a large list, must not exhaust the controller's memory. No
// rendered object can exceed etcd's 1.5 MiB request limit anyway. What the functions of
// a render allocate on the way is bounded too (allocation.go).
//
// The render's limits (bounds.go) bound everything it writes, the output of include and
// tpl included (counted again where it is inserted): 8 MiB by default, and more for every
// route match it is given. They bound, too, the line breaks, commas, [ and { of what its
// templates write, which is what is parsed (what include and tpl write is parsed only
// where it is inserted, and counted there): every YAML node but the first of a line
// follows one of them (or a key's colon), so this bounds the nodes the output is parsed
// into. Parsing costs 230 to 600 bytes a
// node: 8 MiB of "0," is four million nodes and a gigabyte, where the 100,000 separators
// that go with 8 MiB keep it under 60 MiB. The shipped blueprints' examples write at most
// 602 lines.

// maxSequenceLength bounds the lists of until, untilStep and seq.
const maxSequenceLength = 10000

// output is where a template of a render writes; every output of the render draws on
// the binder's byte budget.
type output struct {
	text   strings.Builder
	budget *binder
	// nested is true for the output of include and tpl, whose separators count where
	// their text is written in a template's output, the text that is parsed.
	nested bool
}

func (o *output) Write(p []byte) (int, error) {
	if err := o.count(len(p), separators(p)); err != nil {
		return 0, err
	}
	return o.text.Write(p)
}

// WriteString writes s as Write writes its bytes.
func (o *output) WriteString(s string) (int, error) {
	if err := o.count(len(s), separators(s)); err != nil {
		return 0, err
	}
	return o.text.WriteString(s)
}

// count draws n bytes, of which seps separators, from the budget, and makes room for
// them.
func (o *output) count(n, seps int) error {
	b := o.budget
	b.written += n
	if b.written > b.limits.renderedBytes {
		return fmt.Errorf("the render wrote more than %s; is a loop running over more data than intended?", mebibytes(b.limits.renderedBytes))
	}
	if !o.nested {
		b.separators += seps
	}
	if b.separators > b.limits.separators {
		return fmt.Errorf("the render wrote more than %d lines, commas and brackets together, which would parse into as many YAML nodes; is a loop running over more data than intended?", b.limits.separators)
	}
	if o.text.Cap()-o.text.Len() < n {
		// Grow doubles the buffer: left to append, a large one grows by a quarter at a
		// time, and 8 MiB of output allocates 40 MiB on the way instead of at most 32.
		o.text.Grow(n)
	}
	return nil
}

// separators counts the line breaks, commas, [ and { of p.
func separators[T string | []byte](p T) int {
	n := 0
	for i := range len(p) {
		switch p[i] {
		case '\n', ',', '[', '{':
			n++
		}
	}
	return n
}

// String is what was written, with text/template's "<no value>" for a missing map key
// rendered as nothing, as Helm does.
func (o *output) String() string {
	return strings.ReplaceAll(o.text.String(), noValue, "")
}

// noValue is what text/template prints for a missing map key.
const noValue = "<no value>"

// boundSequences replaces sprig's until, untilStep and seq by versions that refuse to
// build more than the limits allow.
func boundSequences(funcs template.FuncMap) {
	until := funcs["until"].(func(int) []int)
	untilStep := funcs["untilStep"].(func(int, int, int) []int)
	seq := funcs["seq"].(func(...int) string)
	funcs["until"] = func(count int) ([]int, error) {
		if err := checkSequence("until", 0, count, 1); err != nil {
			return nil, err
		}
		return until(count), nil
	}
	funcs["untilStep"] = func(start, stop, step int) ([]int, error) {
		if err := checkSequence("untilStep", start, stop, step); err != nil {
			return nil, err
		}
		return untilStep(start, stop, step), nil
	}
	funcs["seq"] = func(params ...int) (string, error) {
		start, stop, step := 1, 0, 1
		switch len(params) {
		case 1:
			stop = params[0]
		case 2:
			start, stop = params[0], params[1]
		case 3:
			start, step, stop = params[0], params[1], params[2]
		}
		if err := checkSequence("seq", start, stop, step); err != nil {
			return "", err
		}
		return seq(params...), nil
	}
}

// checkSequence refuses a sequence from start to stop by step longer than the limit.
func checkSequence(name string, start, stop, step int) error {
	if n := sequenceLength(start, stop, step); n > maxSequenceLength {
		return fmt.Errorf("%s: a sequence of %d elements is longer than the %d a render allows", name, n, maxSequenceLength)
	}
	return nil
}

// sequenceLength is how many elements a sequence from start to stop by step has, at
// most saturated. It counts in unsigned numbers: until -9223372036854775808 spans more
// than an int holds.
func sequenceLength(start, stop, step int) int {
	span := uint64(stop) - uint64(start)
	if stop < start {
		span = uint64(start) - uint64(stop)
	}
	stride := uint64(max(step, 1))
	if step < 0 {
		stride = -uint64(step)
	}
	return int(min(span/stride, saturated))
}
