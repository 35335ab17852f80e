package fuzzchoices

import "testing"

// Each byte is one choice, taken modulo the choices; past the end, the first.
func TestEachByteIsOneChoice(t *testing.T) {
	c := New([]byte{7, 2})
	if got := c.Pick(3); got != 1 {
		t.Errorf("7 among 3: %d, want 1", got)
	}
	if got := From(c, []string{"a", "b", "c"}); got != "c" {
		t.Errorf("2 among a, b, c: %s, want c", got)
	}
	if got := c.Pick(5); got != 0 {
		t.Errorf("past the end: %d, want 0", got)
	}
}
