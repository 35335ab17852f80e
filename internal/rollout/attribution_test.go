package rollout

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// toLastWave steps a fleet of ten through the first waves to the one that takes every
// Gateway.
func toLastWave(t *testing.T, f *fleet) {
	t.Helper()
	f.step(t)
	f.advance(t, time.Second)
	f.advance(t, soak)
	f.advance(t, soak)
	if f.status.Wave != 3 || f.stable != 2 {
		t.Fatalf("status %+v and stable %d, want the last wave under way", f.status, f.stable)
	}
}

// excused are the Gateways the status names as excused, with why.
func excused(f *fleet) map[string]string {
	out := map[string]string{}
	if f.status.Excused != nil {
		for _, e := range f.status.Excused.Gateways {
			out[e.Gateway] = e.Reason
		}
	}
	return out
}

func wantExcused(t *testing.T, f *fleet, gateway, because string) {
	t.Helper()
	if why, ok := excused(f)[gateway]; !ok || !strings.Contains(why, because) {
		t.Errorf("the status excuses %v, want %s because %q", excused(f), gateway, because)
	}
}

// Each case is one way a Gateway can fail, or churn, during its wave: who is to blame
// decides whether the rollout goes on or goes back.
func TestAttribution(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, f *fleet)
	}{
		{"a tenant put last that breaks its Gateway during the last wave does not roll the fleet back", func(t *testing.T, f *fleet) {
			toLastWave(t, f)
			f.advance(t, time.Second)
			f.edit(9, true) // a bad GatewayConfig value: its render fails
			f.advance(t, soak)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
			if f.stable != 2 {
				t.Errorf("stable revision %d, want the provider's 2", f.stable)
			}
			wantExcused(t, f, "ns/gw-09", "its Gateway, GatewayConfigs or routes changed since its last render")
		}},
		{"a tenant's edit that renders but breaks its Gateway on the revision excuses it, in any wave", func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.brokenGateways[key(0)] = true
			f.members[0].InputsUnrendered = true
			f.now = f.now.Add(time.Second)
			f.members[0].InputsSince = f.now // rendered with the revision, not healthy
			f.members[0].InputsUnrendered = false
			f.render()
			f.advance(t, soak)
			wantRunning(t, f, 2, 5)
			wantExcused(t, f, "ns/gw-00", "changed after it took revision 2")
			f.advance(t, soak)
			f.advance(t, soak)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
		}},
		{"a tenant's edit during the last wave, rendered before the revision reached its Gateway, excuses it", func(t *testing.T, f *fleet) {
			toLastWave(t, f)
			f.members[9].Running, f.members[9].RevisionSince = 1, f.now.Add(-time.Hour) // behind: not rendered the revision yet
			f.members[9].InputsSince = f.now                                            // rendered on the revision it ran
			f.brokenGateways[key(9)] = true
			f.now = f.now.Add(time.Second)
			f.render() // the revision, a second later, with the same inputs
			f.advance(t, soak)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
			wantExcused(t, f, "ns/gw-09", "changed after it took revision 2")
		}},
		{"a Gateway whose tenant changed it before its wave, which the revision then breaks, still gates and rolls back", func(t *testing.T, f *fleet) {
			f.members[0].InputsSince = f.now.Add(-time.Minute)
			f.broken[2] = true
			f.step(t)
			f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			if got := f.status.Failure.Gateways; !reflect.DeepEqual(got, []string{"ns/gw-00"}) {
				t.Errorf("the failure names %v, want ns/gw-00", got)
			}
		}},
		{"a Gateway first recorded in the second its wave starts, which the revision breaks, still gates and rolls back", func(t *testing.T, f *fleet) {
			// Records keep whole seconds: its inputs look recorded as the wave started.
			f.members[0].Created, f.members[0].Recorded, f.members[0].InputsSince = f.now, f.now, f.now
			f.broken[2] = true
			f.step(t)
			f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			if got := f.status.Failure; got == nil || !reflect.DeepEqual(got.Gateways, []string{"ns/gw-00"}) {
				t.Errorf("the failure %+v, want it to name ns/gw-00", got)
			}
		}},
		{"a revision whose render fails for a first-wave Gateway rolls back and says the render's error", func(t *testing.T, f *fleet) {
			f.unrenderable[2] = `template "proxy" line 4: replicas: "three" is not an integer`
			f.step(t)
			wantRunning(t, f, 1, 10)
			f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			failure := f.status.Failure
			if !reflect.DeepEqual(failure.Gateways, []string{"ns/gw-00"}) || !strings.Contains(failure.Message, `it does not render from revision 2: template "proxy" line 4`) {
				t.Errorf("failure %+v, want ns/gw-00 and the render's error", failure)
			}
		}},
		{"a broken Gateway moved into the class during the last wave does not gate it", func(t *testing.T, f *fleet) {
			toLastWave(t, f)
			moved := Member{
				Key: types.NamespacedName{Namespace: "ns", Name: "moved"}, Created: t0.Add(-time.Hour), Recorded: t0.Add(-time.Hour),
				Running: 7, RevisionSince: t0.Add(-time.Hour), InputsSince: t0.Add(-time.Hour), InputsUnrendered: true,
			}
			f.members = append(f.members, moved)
			f.brokenGateways[moved.Key] = true
			f.advance(t, time.Second)
			f.advance(t, soak)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
			if f.stable != 2 {
				t.Errorf("stable revision %d, want 2", f.stable)
			}
		}},
		{"a broken Gateway moved into the class during a wave is not taken into it, and does not gate the next", func(t *testing.T, f *fleet) {
			f.step(t)
			f.now = f.now.Add(time.Second)
			moved := Member{
				Key: types.NamespacedName{Namespace: "a-first", Name: "moved"}, Created: t0.Add(-time.Hour), Recorded: t0.Add(-time.Hour),
				Running: 7, InputsSince: f.now,
			}
			f.members = append(f.members, moved)
			f.brokenGateways[moved.Key] = true
			f.render()
			f.step(t)
			if m := f.members[10]; m.Target != 0 {
				t.Fatalf("the moved Gateway was taken into the wave under way (target %d)", m.Target)
			}
			f.advance(t, soak)
			if m := f.members[10]; m.Target != 2 || m.Gates {
				t.Errorf("the moved Gateway has target %d and gates %v in the next wave, want 2 and false", m.Target, m.Gates)
			}
			for range 3 { // eleven Gateways: waves of 2, 6 and 11
				f.advance(t, soak)
			}
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
		}},
		{"a Gateway deleted and recreated during its wave neither holds it nor takes its place in it", func(t *testing.T, f *fleet) {
			f.step(t)
			started := f.now
			f.advance(t, 5*time.Second)
			f.members[0] = Member{Key: key(0), Created: f.now, Recorded: f.now} // a new UID: a new Gateway, a new record
			f.render()
			f.step(t)
			wantRunning(t, f, 2, 0)
			f.now = started.Add(soak)
			f.step(t)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
			if f.status.Wave != 1 || f.members[0].Target != 2 {
				t.Errorf("wave %d, gw-00's target %d: want the first wave passed on its own soak, the recreated Gateway in the next", f.status.Wave, f.members[0].Target)
			}
		}},
		{"a route attached every 2 s does not keep the soak from completing", func(t *testing.T, f *fleet) {
			f.step(t)
			started := f.now
			for f.now.Before(started.Add(soak)) {
				f.now = f.now.Add(2 * time.Second)
				f.edit(0, false)
				f.step(t)
			}
			wantRunning(t, f, 2, 5)
			wantExcused(t, f, "ns/gw-00", "changed")
		}},
		{"a route churned on a Gateway of a wave that covers every Gateway does not hold it to its deadline", func(t *testing.T, f *fleet) {
			toLastWave(t, f)
			started := f.status.WaveStarted.Time
			for f.status.Phase == gatewrightv1alpha1.RolloutProgressing && f.now.Before(started.Add(300*time.Second)) {
				f.now = f.now.Add(2 * time.Second)
				f.edit(4, false)
				f.step(t)
			}
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
			if f.now.After(started.Add(soak + 2*time.Second)) {
				t.Errorf("complete at %s, more than a soak after the wave's start at %s", f.now, started)
			}
		}},
		{"a Gateway whose route's backend its tenant deleted during the wave does not gate", func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.tenantOnly[key(0)] = true
			f.render()
			f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
			wantRunning(t, f, 2, 5)
			wantExcused(t, f, "ns/gw-00", "in its tenant's control: HTTPRoute ns/cart ResolvedRefs is False (BackendNotFound)")
		}},
		{"a Gateway that the revision breaks with its inputs unchanged rolls back, whoever else was excused", func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.advance(t, soak) // gw-00..04
			f.edit(1, true)
			f.broken[2] = true
			f.render()
			f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			if got := f.status.Failure.Gateways; !reflect.DeepEqual(got, []string{"ns/gw-00", "ns/gw-02", "ns/gw-03", "ns/gw-04"}) {
				t.Errorf("the failure names %v, want the four whose inputs did not change", got)
			}
			wantExcused(t, f, "ns/gw-01", "changed")
		}},
		{"a Gateway the revision makes flap up to the deadline rolls back, and the failure names it", func(t *testing.T, f *fleet) {
			f.step(t)
			f.broken[2] = true
			f.render()
			f.now = f.now.Add(290 * time.Second)
			f.broken[2] = false
			f.render()
			f.advance(t, 10*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			failure := f.status.Failure
			if !reflect.DeepEqual(failure.Gateways, []string{"ns/gw-00"}) || !strings.Contains(failure.Message, "turned healthy on revision 2 at") {
				t.Errorf("failure %+v, want ns/gw-00, healthy too late", failure)
			}
		}},
		{"Gateways made or changed in the second before their wave starts are taken into it", func(t *testing.T, f *fleet) {
			for i := range f.members {
				f.members[i].Created, f.members[i].InputsSince = f.now, f.now
			}
			f.step(t)
			wantRunning(t, f, 2, 1)
			if m := f.members[0]; !m.Gates {
				t.Errorf("the first Gateway does not gate its wave")
			}
		}},
		{"the excused Gateways a status names are bounded, the rest counted", func(t *testing.T, f *fleet) {
			toLastWave(t, f)
			for i := range 10 {
				f.edit(i, true)
			}
			f.advance(t, time.Second)
			if e := f.status.Excused; e == nil || len(e.Gateways) != gatewrightv1alpha1.MaxRolloutExcusedGateways || e.More != 5 {
				t.Errorf("excused %+v, want %d named and 5 counted", e, gatewrightv1alpha1.MaxRolloutExcusedGateways)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, newFleet(10, 1, 2, wavesConfig()))
		})
	}
}

// A restarted controller that wrote a wave's status but none of its assignments takes
// the same Gateways, up to the recorded end, even if the order shifted since.
func TestFillStopsAtTheWaveEnd(t *testing.T) {
	f := newFleet(10, 1, 2, wavesConfig())
	f.step(t)
	f.advance(t, time.Second)
	f.now = f.now.Add(soak)
	first := Step(f.status, f.cfg, f.observe())
	f.status = first.Status // written; the controller dies before assigning
	f.members = append(f.members[:2], f.members[3:]...)
	again := Step(f.status, f.cfg, f.observe())
	var got []string
	for _, a := range again.Assignments {
		for _, k := range a.Gateways {
			got = append(got, k.Name)
		}
	}
	if want := []string{"gw-01", "gw-03", "gw-04"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after a restart the wave takes %v, want %v: up to its end, gw-02 gone", got, want)
	}
}
