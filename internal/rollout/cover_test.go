package rollout

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// The wave that takes every Gateway (the last, or all at once) makes the revision the
// blueprint's current one rather than assigning it to each Gateway.
func TestAWaveOfEveryGatewayMakesTheRevisionCurrent(t *testing.T) {
	cases := []struct {
		name string
		n    int
		cfg  Config
		run  func(t *testing.T, f *fleet)
	}{
		{"the last wave assigns no Gateway: the revision becomes current and the gate still holds it", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.advance(t, soak) // the 50% wave: assigned one by one
			f.advance(t, time.Second)
			r := f.advance(t, soak) // the last wave
			if len(r.Assignments) != 0 {
				t.Errorf("the last wave assigns %+v, want nothing", r.Assignments)
			}
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
			wantRunning(t, f, 2, 10)
			if f.stable != 2 || f.assigned(2) != 5 {
				t.Errorf("current revision %d and %d Gateways assigned 2, want 2 and the first three waves' 5", f.stable, f.assigned(2))
			}
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutProgressing)
			f.advance(t, soak)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
		}},
		{"all at once assigns no Gateway", 10, allAtOnce(), func(t *testing.T, f *fleet) {
			if r := f.step(t); len(r.Assignments) != 0 {
				t.Errorf("all at once assigns %+v, want nothing", r.Assignments)
			}
			wantRunning(t, f, 2, 10)
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
		}},
		{"all at once, rolled back at its deadline, makes the revision it started from current again", 10, allAtOnce(), func(t *testing.T, f *fleet) {
			f.broken[2] = true
			f.step(t)
			wantRunning(t, f, 2, 10)
			r := f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 1, 10)
			if f.stable != 1 || len(r.Assignments) != 0 {
				t.Errorf("current revision %d and assignments %+v after the rollback, want 1 and none", f.stable, r.Assignments)
			}
			if got := len(f.status.Failure.Gateways); got != 10 {
				t.Errorf("the failure names %d Gateways, want all 10", got)
			}
		}},
		{"the last wave's rollback sends the Gateways of earlier waves back one by one, the rest with the current revision", 10, wavesConfig(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.advance(t, time.Second)
			f.advance(t, soak)
			f.advance(t, time.Second)
			f.broken[2] = true
			f.advance(t, soak) // the last wave, broken
			f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 1, 10)
			if f.stable != 1 || f.assigned(2) != 0 {
				t.Errorf("current revision %d and %d Gateways still assigned 2, want 1 and none", f.stable, f.assigned(2))
			}
		}},
		{"a Gateway unhealthy when the wave starts gets the revision without gating it", 10, allAtOnce(), func(t *testing.T, f *fleet) {
			f.brokenGateways[key(3)] = true
			f.render()
			r := f.step(t)
			want := []Assignment{{Revision: 2, Gateways: []types.NamespacedName{key(3)}}}
			if !reflect.DeepEqual(r.Assignments, want) {
				t.Fatalf("assignments %+v, want %+v: only the broken Gateway, not gating", r.Assignments, want)
			}
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
		}},
		{"a Gateway recorded after the wave started does not gate it", 10, allAtOnce(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.now = f.now.Add(time.Second)
			late := types.NamespacedName{Namespace: "a-first", Name: "late"}
			f.members = append(f.members, Member{Key: late, Created: f.now})
			f.brokenGateways[late] = true
			f.render()
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
		}},
		{"a Gateway that breaks on the revision holds the wave and rolls it back", 10, allAtOnce(), func(t *testing.T, f *fleet) {
			f.step(t)
			f.brokenGateways[key(7)] = true
			f.render()
			f.advance(t, 300*time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			if got := f.status.Failure.Gateways; len(got) != 1 || got[0] != key(7).String() {
				t.Errorf("the failure names %v, want only %s", got, key(7))
			}
		}},
		{"targets left by an earlier rollout yield to the new current revision", 10, allAtOnce(), func(t *testing.T, f *fleet) {
			for i := range f.members {
				f.members[i].Target = 1 // all assigned 1 one by one, when 1 rolled out
			}
			f.render()
			if r := f.step(t); len(r.Assignments) != 0 {
				t.Errorf("assignments %+v, want none", r.Assignments)
			}
			wantRunning(t, f, 2, 10)
		}},
		{"targets older than the current revision are no strays: none is sent back", 10, allAtOnce(), func(t *testing.T, f *fleet) {
			f.stable, f.target = 2, 3
			for i := range f.members {
				f.members[i].Target = 1 // from a rollout before the one that made 2 current
			}
			f.render()
			if r := f.step(t); len(r.Assignments) != 0 {
				t.Errorf("assignments %+v, want none", r.Assignments)
			}
			wantRunning(t, f, 3, 10)
		}},
		{"a newer revision while the last wave's is current rolls from the revision before it", 10, allAtOnce(), func(t *testing.T, f *fleet) {
			f.broken[2] = true
			f.step(t)
			f.target = 3
			f.cfg = wavesConfig()
			f.advance(t, time.Second)
			if f.status.Revision != 3 || f.status.From != 1 || f.stable != 1 {
				t.Fatalf("rollout of %d from %d with current revision %d, want 3 from 1 with 1 current: 2 never passed its gate", f.status.Revision, f.status.From, f.stable)
			}
			wantRunning(t, f, 3, 1)
			wantRunning(t, f, 1, 9)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, newFleet(c.n, 1, 2, c.cfg))
		})
	}
}
