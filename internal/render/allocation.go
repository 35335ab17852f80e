package render

import "fmt"

// maxAllocatedBytes bounds what the functions of one render allocate building text,
// lists and maps: every function whose result or work can be much larger than its
// arguments (see builders.go), and fmt printing a value. A tenant's number within a
// valuesSchema's bounds, or a string doubled ten times, builds gigabytes before the
// output limit sees a byte, so each function draws what it is about to allocate, computed
// from its arguments, and a render past the budget stops before allocating. The outputs
// (include and tpl too) stay within maxRenderedBytes, refused before they grow, and their
// buffers allocate at most four times that: a render allocates at most 64 MiB of text,
// lists and maps.
const maxAllocatedBytes = 4 * maxRenderedBytes

// allocate draws n bytes that what (a function, or printing a value) is about to allocate.
func (b *binder) allocate(what string, n int) error {
	left := maxAllocatedBytes - b.allocated
	if n > left {
		return &limitError{message: fmt.Sprintf("%s would allocate %s, over the %s left of the render's %d MiB budget", what, byteSize(n), byteSize(left), maxAllocatedBytes>>20)}
	}
	b.allocated += n
	return nil
}

// left is what remains of the budget: measuring a value further is pointless.
func (b *binder) left() int { return maxAllocatedBytes - b.allocated }

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
