package ctrlutil

import (
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Pace spaces the reconciles that a burst of events asks for: each request is let start
// at most once per Every, the first at once, the next at the end of the interval. Thousands
// of routes created on one Gateway then render it a few times a second, each render
// taking every route that came since the last, rather than once after another for as
// long as they keep coming; a lone event still reconciles at once.
type Pace struct {
	Every time.Duration

	mu sync.Mutex
	// at is when the latest reconcile of each request was let start.
	at map[reconcile.Request]time.Time
	// forgetAt is how many requests at holds when forgetOlder next looks at them.
	forgetAt int
}

// Wait is how long after now the reconcile an event asks for, of req, waits. Every event
// enqueues req, even one set to start later: the queue merges the two, and a reconcile
// let start at once may have begun before the event reached the cache.
func (p *Pace) Wait(req reconcile.Request) time.Duration {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.at == nil {
		p.at = map[reconcile.Request]time.Time{}
	}
	at, seen := p.at[req]
	switch {
	case !seen || now.Sub(at) >= p.Every:
		p.forgetOlder(now)
		p.at[req] = now
		return 0
	case !at.After(now):
		p.at[req] = at.Add(p.Every)
	}
	return p.at[req].Sub(now)
}

// forgetOlder forgets the requests not let start within an interval before now, which
// would start at once anyway (those of objects long gone among them), each time at has
// doubled: a pass over every request per event would cost a fleet of Gateways more than
// the memory it saves.
func (p *Pace) forgetOlder(now time.Time) {
	const least = 1024
	if len(p.at) < max(p.forgetAt, least) {
		return
	}
	for req, at := range p.at {
		if now.Sub(at) >= p.Every {
			delete(p.at, req)
		}
	}
	p.forgetAt = 2 * len(p.at)
}
