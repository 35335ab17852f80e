package render

import (
	"testing"
	"time"
)

// SetClock makes renders read the time from now until the test ends.
func SetClock(t testing.TB, now func() time.Time) {
	saved := clock
	clock = now
	t.Cleanup(func() { clock = saved })
}

// IdleClones is how many copies of b's templates wait for a render.
func IdleClones(b *Blueprint) int {
	b.clonesMu.Lock()
	defer b.clonesMu.Unlock()
	return len(b.clones)
}
