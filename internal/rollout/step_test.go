package rollout

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

const soak = 30 * time.Second

func wavesConfig() Config { return ConfigFrom(nil) }

func allAtOnce() Config {
	return ConfigFrom(&gatewrightv1alpha1.BlueprintRollout{Strategy: gatewrightv1alpha1.RolloutAllAtOnce})
}

func wantPhase(t *testing.T, f *fleet, phase gatewrightv1alpha1.RolloutPhase) {
	t.Helper()
	if f.status.Phase != phase {
		t.Fatalf("phase %s, want %s (status %+v)", f.status.Phase, phase, f.status)
	}
}

func wantRunning(t *testing.T, f *fleet, revision int64, n int) {
	t.Helper()
	if got := f.running(revision); got != n {
		t.Fatalf("%d Gateways run revision %d, want %d", got, revision, n)
	}
}

func TestStep(t *testing.T) {
	cases := []struct {
		name string
		n    int
		cfg  Config
		run  func(t *testing.T, f *fleet)
	}{
		{"ten Gateways take a good revision in waves of 1, 5 and 10, each after a soak", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			var seen []int
			for range 20 {
				f.step(t)
				seen = append(seen, f.running(2))
				if f.status.Phase == gatewrightv1alpha1.RolloutComplete {
					break
				}
				f.now = f.now.Add(soak)
			}
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
			if f.stable != 2 {
				t.Errorf("stable revision %d after completion, want 2", f.stable)
			}
			// Each wave: assigned and rendered healthy, then, a soak later, the next.
			want := []int{1, 5, 10, 10}
			if !reflect.DeepEqual(seen, want) {
				t.Errorf("Gateways on the new revision step by step %v, want %v", seen, want)
			}
		}},
		{"a wave is held until every Gateway in it has been healthy for the soak", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t) // wave 0 assigned, rendered healthy at once
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
			if r := f.advance(t, soak-2*time.Second); r.RequeueAfter != time.Second {
				t.Errorf("requeue after %s, want the 1s left of the soak", r.RequeueAfter)
			}
			wantRunning(t, f, 2, 1)
			f.advance(t, time.Second)
			wantRunning(t, f, 2, 5)
		}},
		{"a wave that does not become healthy by the deadline goes back and no other Gateway ever runs the revision", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.broken[2] = true
			f.step(t)
			wantRunning(t, f, 2, 1)
			f.advance(t, 299*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 2, 0)
			wantRunning(t, f, 1, 10)
			failure := f.status.Failure
			if failure == nil || failure.Revision != 2 || failure.Wave != 0 || !reflect.DeepEqual(failure.Gateways, []string{"ns/gw-00"}) {
				t.Fatalf("failure %+v, want revision 2, wave 0, Gateway ns/gw-00", failure)
			}
			if want := "Gateway ns/gw-00 is not healthy on revision 2 after 5m0s: Gateway Programmed is False (Pending): deployment not available"; failure.Message != want {
				t.Errorf("message %q, want %q", failure.Message, want)
			}
			f.advance(t, time.Hour)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 2, 0)
		}},
		{"a wave healthy too late for its soak before the deadline goes back", 3, wavesConfig(), func(t *testing.T, f *fleet) {
			f.broken[2] = true
			f.step(t)
			f.advance(t, 290*time.Second)
			f.broken[2] = false
			f.render()
			f.advance(t, time.Second)
			wantRunning(t, f, 2, 1)
			f.advance(t, 9*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 2, 0)
		}},
		{"the next revision after a rollback starts a new rollout from the stable one", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.broken[2] = true
			f.step(t)
			f.advance(t, 300*time.Second)
			f.target = 3
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
			if f.status.From != 1 || f.status.Revision != 3 || f.status.Failure != nil {
				t.Fatalf("status %+v, want a rollout of 3 from 1 without a failure", f.status)
			}
			wantRunning(t, f, 3, 1)
		}},
		{"a new revision during a rollout starts over, its Gateways going back to the stable revision", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.advance(t, soak)
			wantRunning(t, f, 2, 5)
			f.target = 3
			f.advance(t, time.Second)
			wantRunning(t, f, 2, 0)
			wantRunning(t, f, 3, 1)
			wantRunning(t, f, 1, 9)
			if f.status.Wave != 0 || f.status.From != 1 {
				t.Errorf("status %+v, want wave 0 from revision 1", f.status)
			}
		}},
		{"a paused rollout starts no wave and rolls none back; resuming restarts the gate", 10, func() Config {
			cfg := wavesConfig()
			cfg.Paused = true
			return cfg
		}(), func(t *testing.T, f *fleet) {
			f.step(t)
			wantPhase(t, f, gatewrightv1alpha1.RolloutPaused)
			wantRunning(t, f, 2, 0)
			f.cfg.Paused = false
			f.advance(t, time.Second)
			wantRunning(t, f, 2, 1)
			f.broken[2] = true
			f.render()
			f.cfg.Paused = true
			f.advance(t, time.Hour)
			wantPhase(t, f, gatewrightv1alpha1.RolloutPaused)
			wantRunning(t, f, 2, 1)
			f.cfg.Paused = false
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
			if !f.status.WaveStarted.Time.Equal(f.now) {
				t.Errorf("wave started %s after resuming at %s", f.status.WaveStarted, f.now)
			}
			f.advance(t, 299*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
		}},
		{"a status without a wave start, as if edited by hand, starts its wave again", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.status = &Status{Revision: 2, From: 1, Phase: gatewrightv1alpha1.RolloutProgressing, Wave: 2, Updated: 5}
			f.step(t)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
			wantRunning(t, f, 2, 5)
		}},
		{"all at once assigns every Gateway and completes as soon as they are healthy", 10, allAtOnce(), func(t *testing.T, f *fleet) {
			f.step(t)
			wantRunning(t, f, 2, 10)
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
			if f.stable != 2 {
				t.Errorf("stable revision %d, want 2", f.stable)
			}
		}},
		{"all at once rolls every Gateway back at the deadline", 10, allAtOnce(), func(t *testing.T, f *fleet) {
			f.broken[2] = true
			f.step(t)
			f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 1, 10)
			if got := len(f.status.Failure.Gateways); got != 10 {
				t.Errorf("the failure names %d Gateways, want 10", got)
			}
		}},
		{"a failure names sixteen Gateways and counts the rest", 40, allAtOnce(), func(t *testing.T, f *fleet) {
			f.broken[2] = true
			f.step(t)
			f.advance(t, 300*time.Second)
			if failure := f.status.Failure; len(failure.Gateways) != 16 || failure.MoreGateways != 24 {
				t.Errorf("failure names %d Gateways and counts %d more, want 16 and 24", len(failure.Gateways), failure.MoreGateways)
			}
		}},
		{"one Gateway takes the revision in one wave and completes after its soak", 1, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			wantRunning(t, f, 2, 1)
			f.advance(t, time.Second)
			f.advance(t, soak)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
		}},
		{"a blueprint's first revision is current at once", 3, wavesConfig(), func(t *testing.T, f *fleet) {
			f.stable, f.target = 0, 1
			f.step(t)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
			if f.stable != 1 {
				t.Errorf("stable revision %d, want 1", f.stable)
			}
		}},
		{"a Gateway created during a wave runs the stable revision until the next wave", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.now = f.now.Add(time.Second)
			f.members = append(f.members, Member{Key: types.NamespacedName{Namespace: "a-first", Name: "new"}, Created: f.now})
			f.render()
			f.step(t)
			if m := f.members[10]; m.Target != 0 {
				t.Errorf("the new Gateway was assigned revision %d in a wave that started before it", m.Target)
			}
			f.advance(t, soak)
			if m := f.members[10]; m.Target != 2 {
				t.Errorf("the new Gateway, first in order, has target %d in the next wave, want 2", m.Target)
			}
		}},
		{"a Gateway deleted mid-wave is not replaced: the wave neither waits for a stand-in nor restarts its soak", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.advance(t, soak)
			wantRunning(t, f, 2, 5)
			started := f.status.WaveStarted.Time
			f.members = append(f.members[:3], f.members[4:]...) // gw-03, of this wave, goes
			f.advance(t, soak-2*time.Second)
			wantRunning(t, f, 2, 4)
			if f.status.WaveEnd == nil || f.status.WaveEnd.Name != "gw-04" {
				t.Errorf("the wave ends at %+v, want gw-04", f.status.WaveEnd)
			}
			f.now = started.Add(soak)
			f.step(t)
			wantRunning(t, f, 2, 9)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
		}},
		{"a Gateway created after a wave started does not take the place of one deleted from it", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.now = f.now.Add(time.Second)
			f.members = append(f.members[1:], Member{Key: types.NamespacedName{Namespace: "a-first", Name: "new"}, Created: f.now})
			f.render()
			f.step(t)
			if m := f.members[9]; m.Target != 0 {
				t.Errorf("the new Gateway was assigned revision %d in a wave that started before it", m.Target)
			}
			wantRunning(t, f, 2, 0)
			f.advance(t, soak-time.Second)
			wantRunning(t, f, 2, 1)
		}},
		{"a wave short of a deleted Gateway at its deadline takes no one new as it goes back", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.advance(t, soak)
			wantRunning(t, f, 2, 5)
			f.broken[2] = true
			f.render()
			f.members = append(f.members[:2], f.members[3:]...)
			f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 2, 0)
			for _, m := range f.members {
				if m.Target > 1 {
					t.Errorf("%s was assigned revision %d by a wave that failed", m.Key, m.Target)
				}
			}
			if got := f.status.Failure.Gateways; !reflect.DeepEqual(got, []string{"ns/gw-00", "ns/gw-01", "ns/gw-03", "ns/gw-04"}) {
				t.Errorf("the failure names %v, want the wave's four Gateways left", got)
			}
		}},
		{"a controller killed after writing the status resumes the same wave with the same assignments", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.now = f.now.Add(soak)
			first := Step(f.status, f.cfg, f.observe())
			f.status = first.Status // written; the controller dies before assigning
			again := Step(f.status, f.cfg, f.observe())
			if !reflect.DeepEqual(first, again) {
				t.Errorf("after a restart the step gives\n%+v\nwant\n%+v", again, first)
			}
			f.apply(again.Assignments)
			wantRunning(t, f, 2, 5)
		}},
		{"a new leader continues the gate of a status another instance wrote", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			written := f.status.DeepCopy() // another instance wrote it; this one starts cold
			f.status = written
			f.now = written.WaveStarted.Add(soak - time.Second)
			f.step(t)
			wantRunning(t, f, 2, 1)
			if !f.status.WaveStarted.Equal(written.WaveStarted) {
				t.Errorf("wave started %s, want the recorded %s: the gate restarted", f.status.WaveStarted, written.WaveStarted)
			}
			f.advance(t, time.Second)
			wantRunning(t, f, 2, 5)
		}},
		{"a Gateway that turns unhealthy and healthy again restarts the soak from its recovery", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, 20*time.Second)
			f.broken[2] = true
			f.render()
			f.broken[2] = false
			f.render() // healthy again since now
			f.advance(t, soak-time.Second)
			wantRunning(t, f, 2, 1)
			f.advance(t, 2*time.Second)
			wantRunning(t, f, 2, 5)
		}},
		{"a Gateway broken before its wave neither holds the wave nor rolls it back", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.brokenGateways[key(0)] = true
			f.render()
			f.step(t)
			if m := f.members[0]; m.Target != 2 || m.Gates {
				t.Fatalf("the broken Gateway has target %d and gates %v, want 2 and false: it gets the change, without a say", m.Target, m.Gates)
			}
			f.advance(t, time.Second)
			f.advance(t, soak)
			wantRunning(t, f, 2, 5)
			if m := f.members[1]; !m.Gates {
				t.Errorf("a healthy Gateway of the second wave does not gate it")
			}
		}},
		{"a Gateway that breaks on the revision holds its wave even if another was broken before", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.brokenGateways[key(0)] = true
			f.render()
			f.step(t)
			f.advance(t, time.Second)
			f.broken[2] = true
			f.advance(t, soak) // the 50% wave assigned: gw-01..04 gate it
			wantRunning(t, f, 2, 5)
			f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 2, 0)
			if got := f.status.Failure.Gateways; !reflect.DeepEqual(got, []string{"ns/gw-01", "ns/gw-02", "ns/gw-03", "ns/gw-04"}) {
				t.Errorf("the failure names %v, want the four Gateways that gated the wave", got)
			}
		}},
		{"promote assigns every Gateway at once and completes", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.now = f.now.Add(time.Second)
			f.members = append(f.members, Member{Key: types.NamespacedName{Namespace: "z", Name: "new"}, Created: f.now})
			f.cfg.Promote = 2
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
			wantRunning(t, f, 2, 11)
			if f.stable != 2 {
				t.Errorf("stable revision %d, want 2", f.stable)
			}
		}},
		{"promote names a revision: one for another revision does nothing", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.cfg.Promote = 1
			f.step(t)
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
			wantRunning(t, f, 2, 1)
		}},
		{"promote of a revision rolled back is not honoured: its Gateways stay on the revision before", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.advance(t, soak)
			wantRunning(t, f, 2, 5)
			f.cfg.Abort = 2
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			f.cfg.Promote = 2
			f.advance(t, time.Second)
			f.advance(t, time.Hour)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 2, 0)
			if f.stable != 1 {
				t.Errorf("stable revision %d, want 1, the revision before the one rolled back", f.stable)
			}
		}},
		{"abort sends the wave back at once and says the provider asked", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.advance(t, soak)
			wantRunning(t, f, 2, 5)
			f.cfg.Abort = 2
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 2, 0)
			if failure := f.status.Failure; failure == nil || !strings.Contains(failure.Message, "aborted by the provider") || failure.Wave != 2 {
				t.Errorf("failure %+v, want wave 2 (50%%) aborted by the provider", failure)
			}
			f.advance(t, time.Hour)
			wantRunning(t, f, 2, 0)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, newFleet(c.n, 1, 2, c.cfg))
		})
	}
}

func TestStepIsIdempotent(t *testing.T) {
	f := newFleet(10, 1, 2, wavesConfig())
	for range 8 {
		obs := f.observe()
		first := Step(f.status, f.cfg, obs)
		if again := Step(f.status, f.cfg, obs); !reflect.DeepEqual(first, again) {
			t.Fatalf("the same status and observation step to\n%+v\nand\n%+v", first, again)
		}
		f.advance(t, soak/2)
	}
}
