package rollout

import (
	"reflect"
	"strings"
	"testing"
	"time"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

func TestConfigFrom(t *testing.T) {
	cases := []struct {
		name string
		spec *gatewrightv1alpha1.BlueprintRollout
		want Config
	}{
		{"a blueprint without a rollout block rolls out in the default waves", nil,
			Config{Waves: DefaultWaves, Soak: 30 * time.Second, GateDeadline: 300 * time.Second}},
		{"the block's fields are used as written", &gatewrightv1alpha1.BlueprintRollout{
			Waves: []string{"2", "100%"}, SoakSeconds: 5, GateDeadlineSeconds: 60,
			Order: &gatewrightv1alpha1.RolloutOrder{NamespaceLabel: "ring"}, Paused: true,
		}, Config{Waves: []string{"2", "100%"}, Soak: 5 * time.Second, GateDeadline: time.Minute, OrderLabel: "ring", Paused: true}},
		{"all at once is one wave of everyone without a soak", &gatewrightv1alpha1.BlueprintRollout{
			Strategy: gatewrightv1alpha1.RolloutAllAtOnce, Waves: DefaultWaves, SoakSeconds: 30,
		}, Config{Waves: []string{"100%"}, GateDeadline: 300 * time.Second}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ConfigFrom(c.spec); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ConfigFrom = %+v, want %+v", got, c.want)
			}
		})
	}
}

// A promote or abort annotation that is not a revision number holds the rollout, and
// says which; a number asks for that revision, and no annotation asks for nothing.
func TestConfigOfReadsTheRolloutAnnotations(t *testing.T) {
	cases := []struct {
		name        string
		annotations map[string]string
		wantPromote int64
		wantAbort   int64
		wantHeld    bool
		unreadable  string
	}{
		{name: "none", annotations: nil},
		{name: "an empty value asks for nothing", annotations: map[string]string{gatewrightv1alpha1.AnnotationRolloutAbort: ""}},
		{name: "revision numbers", annotations: map[string]string{gatewrightv1alpha1.AnnotationRolloutPromote: "4", gatewrightv1alpha1.AnnotationRolloutAbort: "3"},
			wantPromote: 4, wantAbort: 3},
		{name: "an abort that is not a number holds the rollout", annotations: map[string]string{gatewrightv1alpha1.AnnotationRolloutAbort: "yes"},
			wantHeld: true, unreadable: `annotation gatewright.dev/rollout-abort is "yes", not a revision number`},
		{name: "a revision below 1 holds it too, and a readable abort still counts",
			annotations: map[string]string{gatewrightv1alpha1.AnnotationRolloutPromote: "0", gatewrightv1alpha1.AnnotationRolloutAbort: "2"},
			wantAbort:   2, wantHeld: true, unreadable: `annotation gatewright.dev/rollout-promote is "0", not a revision number`},
		{name: "a long value is cut between characters", annotations: map[string]string{gatewrightv1alpha1.AnnotationRolloutAbort: "x" + strings.Repeat("é", 40)},
			wantHeld: true, unreadable: `annotation gatewright.dev/rollout-abort is "x` + strings.Repeat("é", 22) + `… (36 bytes cut)", not a revision number`},
		{name: "a long value is cut in the message", annotations: map[string]string{gatewrightv1alpha1.AnnotationRolloutPromote: strings.Repeat("x", 1000)},
			wantHeld: true, unreadable: `annotation gatewright.dev/rollout-promote is "` + strings.Repeat("x", 44) + `… (956 bytes cut)", not a revision number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
			bp.Annotations = c.annotations
			cfg := ConfigOf(bp)
			if cfg.Promote != c.wantPromote || cfg.Abort != c.wantAbort || cfg.Paused != c.wantHeld || cfg.Unreadable != c.unreadable {
				t.Errorf("ConfigOf = promote %d, abort %d, paused %v, unreadable %q; want %d, %d, %v, %q",
					cfg.Promote, cfg.Abort, cfg.Paused, cfg.Unreadable, c.wantPromote, c.wantAbort, c.wantHeld, c.unreadable)
			}
		})
	}
}

func TestForcedPromoteOfARevisionRolledBack(t *testing.T) {
	rolledBack := func(t *testing.T) *fleet {
		f := newFleet(10, 1, 2, wavesConfig())
		f.step(t)
		f.advance(t, time.Second)
		f.advance(t, soak)
		wantRunning(t, f, 2, 5)
		f.cfg.Abort = 2
		f.advance(t, time.Second)
		wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
		return f
	}
	t.Run("promote with force of the revision gives it to every Gateway at once and completes", func(t *testing.T) {
		f := rolledBack(t)
		f.cfg.Promote, f.cfg.ForcePromote = 2, 2
		f.advance(t, time.Second)
		wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
		wantRunning(t, f, 2, 10)
		if f.stable != 2 || f.status.Failure != nil {
			t.Errorf("stable revision %d, failure %+v; want 2 and none", f.stable, f.status.Failure)
		}
		f.advance(t, time.Hour)
		wantPhase(t, f, gatewrightv1alpha1.RolloutComplete)
		wantRunning(t, f, 2, 10)
	})
	t.Run("the force alone, or naming another revision, is not a promote", func(t *testing.T) {
		for _, cfg := range []struct{ promote, force int64 }{{0, 2}, {2, 1}, {2, 3}} {
			f := rolledBack(t)
			f.cfg.Promote, f.cfg.ForcePromote = cfg.promote, cfg.force
			f.advance(t, time.Second)
			wantPhase(t, f, gatewrightv1alpha1.RolloutRolledBack)
			wantRunning(t, f, 2, 0)
		}
	})
	t.Run("the force changes nothing for a rollout that was not rolled back", func(t *testing.T) {
		progressing := &Status{Revision: 2, From: 1, Phase: gatewrightv1alpha1.RolloutProgressing}
		if got := Reopened(progressing, Config{Promote: 2, ForcePromote: 2}); got != progressing {
			t.Errorf("Reopened = %+v, want the recorded status", got)
		}
	})
}

func TestConfigOfReadsTheForce(t *testing.T) {
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
	bp.Annotations = map[string]string{
		gatewrightv1alpha1.AnnotationRolloutPromote:      "7",
		gatewrightv1alpha1.AnnotationRolloutForcePromote: "7",
	}
	if cfg := ConfigOf(bp); cfg.Promote != 7 || cfg.ForcePromote != 7 || cfg.Unreadable != "" {
		t.Errorf("ConfigOf = %+v, want promote 7 with force", cfg)
	}
	bp.Annotations[gatewrightv1alpha1.AnnotationRolloutForcePromote] = "yes"
	if cfg := ConfigOf(bp); !strings.Contains(cfg.Unreadable, gatewrightv1alpha1.AnnotationRolloutForcePromote) || !cfg.Paused {
		t.Errorf("ConfigOf = %+v, want the unreadable force to hold the rollout", cfg)
	}
}
