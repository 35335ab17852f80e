package values

import "fmt"

// Tenant values are untrusted, and every walk of them (merge, provenance, reports, the
// valuesSchema, templates) pays for their size and depth. Each block (a policy's default
// or override, the blueprint's spec.values) is held to these bounds before it is even
// decoded.
const (
	// MaxDepth bounds the nesting of objects and lists. Real values are less than 10
	// deep; 64 leaves room for any sensible layout and keeps recursion shallow.
	MaxDepth = 64
	// MaxElements bounds the elements of a block, at all depths together: every key of
	// an object and every item of a list, whatever it holds, empty objects and lists
	// included. Counting keys alone let a list of 170,000 empty objects through, each of
	// which costs a walk and memory all the same.
	MaxElements = 10000
	// MaxBytes bounds the JSON of a block.
	MaxBytes = 512 << 10
	// MaxPathBytes bounds the keys along any one path, together, as written in the
	// JSON. Provenance writes the path of every leaf, so this keeps it proportional to
	// the block: without it, a long chain of long keys above many leaves would be
	// written out once per leaf.
	MaxPathBytes = 1024
)

// Limit names one of the bounds.
type Limit string

const (
	LimitDepth     Limit = "depth"
	LimitElements  Limit = "elements"
	LimitBytes     Limit = "bytes"
	LimitPathBytes Limit = "path bytes"
)

// LimitError says that a block of a policy exceeds a bound. The policy is refused, and
// with it the values of every Gateway and route it reaches: merging the chain without
// it could silently drop an override the provider relies on.
type LimitError struct {
	Source Source
	Half   Half
	Limit  Limit
	Max    int
	// At is where the bound was exceeded: the first keys of the path, each cut short, so
	// that the message stays small whatever the values hold. Empty for LimitBytes.
	At string
}

func (e *LimitError) Error() string {
	var what string
	switch e.Limit {
	case LimitDepth:
		what = fmt.Sprintf("is nested deeper than %d levels", e.Max)
	case LimitElements:
		what = fmt.Sprintf("has more than %d elements (keys and list items)", e.Max)
	case LimitBytes:
		what = fmt.Sprintf("is larger than %d bytes", e.Max)
	case LimitPathBytes:
		what = fmt.Sprintf("has a path whose keys are longer than %d bytes together", e.Max)
	}
	msg := fmt.Sprintf("%s: %s %s", e.Source, blockField(e.Source.Kind, e.Half), what)
	if e.At != "" {
		msg += " at " + e.At
	}
	return msg
}

// checkLimits checks one half of p against the bounds and measures it.
func (p policy) checkLimits(half Half) (blockSize, *LimitError) {
	block := p.block(half)
	if block == nil {
		return blockSize{}, nil
	}
	size, limit, at := scanLimits(block.Raw)
	if limit == "" {
		return size, nil
	}
	return size, &LimitError{Source: p.source, Half: half, Limit: limit, Max: limitMax[limit], At: at}
}

var limitMax = map[Limit]int{LimitDepth: MaxDepth, LimitElements: MaxElements, LimitBytes: MaxBytes, LimitPathBytes: MaxPathBytes}
