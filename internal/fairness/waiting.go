package fairness

import (
	"time"

	"k8s.io/utils/clock"
)

// releaseWaiting makes the waiting items ready when their time comes, until ShutDown. One
// timer serves them all: it is set for the earliest, and reset when that one changes.
func (q *Queue[T]) releaseWaiting() {
	for {
		q.mu.Lock()
		now := q.clock.Now()
		for len(q.waiting) > 0 && !q.waiting[0].readyAt.After(now) {
			q.makeReady(q.waiting[0])
		}
		var timer clock.Timer
		var fired <-chan time.Time
		if len(q.waiting) > 0 {
			timer = q.clock.NewTimer(q.waiting[0].readyAt.Sub(now))
			fired = timer.C()
		}
		q.mu.Unlock()
		select {
		case <-fired:
		case <-q.wake:
		case <-q.stopped:
		}
		if timer != nil {
			timer.Stop()
		}
		if q.ShuttingDown() {
			return
		}
	}
}

// wakeTimer has releaseWaiting look at the earliest waiting item again.
func (q *Queue[T]) wakeTimer() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}
