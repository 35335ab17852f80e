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

// Spend is what a render spent of its limits, and what it held at its end.
type Spend struct {
	Matches                                           int
	Operations, BuiltBytes, Held, Written, Separators int
}

// GatewaySpend renders in with b, as Gateway does, and tells what the render spent.
func GatewaySpend(b *Blueprint, in Input) (Spend, error) {
	c, err := b.takeClone(in.RouteMatches(), in.TableMemo)
	if err != nil {
		return Spend{}, err
	}
	_, err = b.renderGateway(c, b.gatewayData(in, b.gatewayReads), in)
	s := Spend{Matches: in.RouteMatches(), Operations: c.binder.operations, BuiltBytes: c.binder.built, Held: c.binder.held,
		Written: c.binder.written, Separators: c.binder.separators}
	b.giveBack(c, err)
	return s, err
}
