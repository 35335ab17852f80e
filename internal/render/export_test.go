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
