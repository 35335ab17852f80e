package rollout

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// fleet simulates a class's Gateways: each renders at once whatever revision it should
// run, and is healthy unless that revision is broken.
type fleet struct {
	members []Member
	stable  int64
	target  int64
	broken  map[int64]bool
	// brokenGateways are unhealthy whatever they run, as a tenant can break its own.
	brokenGateways map[types.NamespacedName]bool
	now            time.Time
	status         *Status
	cfg            Config
}

func newFleet(n int, stable, target int64, cfg Config) *fleet {
	f := &fleet{stable: stable, target: target, broken: map[int64]bool{}, brokenGateways: map[types.NamespacedName]bool{}, now: t0, cfg: cfg}
	for i := range n {
		f.members = append(f.members, Member{Key: key(i), Created: t0.Add(-time.Hour), Recorded: t0.Add(-time.Hour)})
	}
	f.render()
	return f
}

func key(i int) types.NamespacedName {
	return types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("gw-%02d", i)}
}

// render brings every member to the revision it should run; one that runs another
// revision, or turns healthy, is healthy since now, as its Rendering and conditions say.
// A member rendered for the first time has its record made now.
func (f *fleet) render() {
	for i := range f.members {
		m := &f.members[i]
		if m.Recorded.IsZero() {
			m.Recorded = f.now
		}
		running := max(m.Target, f.stable)
		healthy := !f.broken[running] && !f.brokenGateways[m.Key]
		switch {
		case !healthy:
			m.HealthySince = time.Time{}
		case running != m.Running || !m.Healthy:
			m.HealthySince = f.now
		}
		m.Running, m.Healthy, m.Reason = running, healthy, ""
		if !m.Healthy {
			m.Reason = "Gateway Programmed is False (Pending): deployment not available"
		}
	}
}

func (f *fleet) observe() Observation {
	return Observation{Stable: f.stable, Target: f.target, Members: f.members, Now: f.now}
}

// step steps the rollout, writes its status and applies its assignments, as the controller would.
func (f *fleet) step(t *testing.T) Result {
	t.Helper()
	r := Step(Reopened(f.status, f.cfg), f.cfg, f.observe())
	f.status, f.stable = r.Status, r.Stable
	f.apply(r.Assignments)
	return r
}

func (f *fleet) apply(assignments []Assignment) {
	for _, a := range assignments {
		for _, k := range a.Gateways {
			for i := range f.members {
				if f.members[i].Key == k {
					f.members[i].Target, f.members[i].Gates = a.Revision, a.Gates
				}
			}
		}
	}
	f.render()
}

// assigned counts the members a rollout assigned revision.
func (f *fleet) assigned(revision int64) int {
	n := 0
	for _, m := range f.members {
		if m.Target == revision {
			n++
		}
	}
	return n
}

// running counts the members that run revision.
func (f *fleet) running(revision int64) int {
	n := 0
	for _, m := range f.members {
		if m.Running == revision {
			n++
		}
	}
	return n
}

// advance moves the clock by d and steps once.
func (f *fleet) advance(t *testing.T, d time.Duration) Result {
	t.Helper()
	f.now = f.now.Add(d)
	return f.step(t)
}
