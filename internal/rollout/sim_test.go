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
	// tenantOnly are unhealthy whatever they run for a reason only their tenant controls
	// (a route's backend deleted).
	tenantOnly map[types.NamespacedName]bool
	// unrenderable are the revisions whose render fails, with the render's error: a
	// Gateway keeps the objects of the revision it ran.
	unrenderable map[int64]string
	now          time.Time
	status       *Status
	cfg          Config
}

func newFleet(n int, stable, target int64, cfg Config) *fleet {
	f := &fleet{
		stable: stable, target: target, broken: map[int64]bool{}, now: t0, cfg: cfg,
		brokenGateways: map[types.NamespacedName]bool{}, tenantOnly: map[types.NamespacedName]bool{}, unrenderable: map[int64]string{},
	}
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
// A member rendered for the first time has its record made now. A member whose tenant
// changed its inputs records them now, unless its render fails.
func (f *fleet) render() {
	for i := range f.members {
		m := &f.members[i]
		if m.Recorded.IsZero() {
			m.Recorded = f.now
		}
		should := max(m.Target, f.stable)
		running, renderError := should, f.unrenderable[should]
		switch {
		case renderError != "" || (m.InputsUnrendered && f.brokenGateways[m.Key]):
			running = m.Running // nothing new is recorded
		case m.InputsUnrendered:
			m.InputsUnrendered, m.InputsSince = false, f.now
		}
		if running != m.Running {
			m.RevisionSince = f.now
		}
		healthy := running == should && !f.broken[running] && !f.brokenGateways[m.Key] && !f.tenantOnly[m.Key]
		switch {
		case !healthy:
			m.HealthySince = time.Time{}
		case running != m.Running || !m.Healthy:
			m.HealthySince = f.now
		}
		m.Running, m.Healthy, m.Reason, m.TenantOnly = running, healthy, "", false
		switch {
		case renderError != "":
			m.Reason = fmt.Sprintf("it does not render from revision %d: %s", should, renderError)
		case f.tenantOnly[m.Key] && !f.broken[running] && !f.brokenGateways[m.Key]:
			m.Reason, m.TenantOnly = "HTTPRoute ns/cart ResolvedRefs is False (BackendNotFound): service cart not found", true
		case !m.Healthy:
			m.Reason = "Gateway Programmed is False (Pending): deployment not available"
		}
	}
}

// edit is member i's tenant changing its Gateway, GatewayConfigs or routes now, which
// breaks it when breaks says so (and then fails to render), else renders at once and
// leaves it healthy, a new route's conditions turning True.
func (f *fleet) edit(i int, breaks bool) {
	m := &f.members[i]
	m.InputsUnrendered = true
	f.brokenGateways[m.Key] = breaks
	f.render()
	if m.Healthy {
		m.HealthySince = f.now
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
