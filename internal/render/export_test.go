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

// SharedAllocated is what the renders running now hold of the pool they share.
func SharedAllocated() int64 { return sharedAllocated.Load() }

// HoldSharedPool takes the whole shared pool, as renders running elsewhere would, until
// the test ends.
func HoldSharedPool(t testing.TB) {
	sharedAllocated.Add(sharedAllocatedBytes)
	t.Cleanup(func() { sharedAllocated.Add(-sharedAllocatedBytes) })
}

// SharedPoolBytes is the size of the pool renders share.
const SharedPoolBytes = sharedAllocatedBytes
