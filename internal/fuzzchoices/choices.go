// Package fuzzchoices reads a fuzzer's bytes as a sequence of small choices, for fuzz
// tests that build structured input (routes, listeners) from them: a mutation of one
// byte changes one choice, so the fuzzer's coverage guidance works on the structure.
package fuzzchoices

// Choices are the bytes not yet read. Past the end every choice is the first.
type Choices struct{ data []byte }

// New reads data.
func New(data []byte) *Choices { return &Choices{data: data} }

// Pick is a choice among n, from 0 to n-1.
func (c *Choices) Pick(n int) int {
	if len(c.data) == 0 {
		return 0
	}
	b := c.data[0]
	c.data = c.data[1:]
	return int(b) % n
}

// From is one of from.
func From[T any](c *Choices, from []T) T { return from[c.Pick(len(from))] }
