package metrics

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
)

// blueprintWithRollout is a blueprint whose status says revision target rolls out from
// current, in phase at wave (an index, as the status has it).
func blueprintWithRollout(name string, current, target int64, phase gatewrightv1alpha1.RolloutPhase, wave int32) *gatewrightv1alpha1.GatewayClassBlueprint {
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: name}}
	bp.Status.CurrentRevision, bp.Status.TargetRevision = current, target
	if phase != "" {
		bp.Status.Rollout = &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: target, From: current, Phase: phase, Wave: wave}
	}
	return bp
}

func TestBlueprintRolloutsReportEachPhaseWaveAndRevisions(t *testing.T) {
	objects := []client.Object{
		blueprintWithRollout("a-progressing", 3, 4, gatewrightv1alpha1.RolloutProgressing, 1),
		blueprintWithRollout("b-paused", 3, 4, gatewrightv1alpha1.RolloutPaused, 0),
		blueprintWithRollout("c-complete", 4, 4, gatewrightv1alpha1.RolloutComplete, 3),
		blueprintWithRollout("d-rolled-back", 3, 4, gatewrightv1alpha1.RolloutRolledBack, 2),
		blueprintWithRollout("e-new", 0, 0, "", 0),
	}
	reader := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objects...).Build()
	primary := true
	c := BlueprintRollouts(reader, func(context.Context) (bool, error) { return primary, nil })
	names := []string{"gatewright_blueprint_rollout_phase", "gatewright_blueprint_rollout_wave", "gatewright_blueprint_current_revision", "gatewright_blueprint_target_revision"}

	if n := testutil.CollectAndCount(c, names...); n != 0 {
		t.Errorf("a replica that does not lead reported %d series", n)
	}
	c.leading.Store(true)

	var want strings.Builder
	want.WriteString("# HELP gatewright_blueprint_rollout_phase 1 for the phase of the blueprint's newest rollout (Progressing, Paused, Complete, RolledBack), 0 for the others.\n# TYPE gatewright_blueprint_rollout_phase gauge\n")
	phases := map[string]string{"a-progressing": "Progressing", "b-paused": "Paused", "c-complete": "Complete", "d-rolled-back": "RolledBack", "e-new": ""}
	for _, bp := range []string{"a-progressing", "b-paused", "c-complete", "d-rolled-back", "e-new"} {
		for _, phase := range []string{"Complete", "Paused", "Progressing", "RolledBack"} {
			value := "0"
			if phases[bp] == phase {
				value = "1"
			}
			want.WriteString(`gatewright_blueprint_rollout_phase{blueprint="` + bp + `",phase="` + phase + `"} ` + value + "\n")
		}
	}
	want.WriteString(`# HELP gatewright_blueprint_rollout_wave The wave the blueprint's newest rollout assigned last, from 1; 0 before any rollout.
# TYPE gatewright_blueprint_rollout_wave gauge
gatewright_blueprint_rollout_wave{blueprint="a-progressing"} 2
gatewright_blueprint_rollout_wave{blueprint="b-paused"} 1
gatewright_blueprint_rollout_wave{blueprint="c-complete"} 4
gatewright_blueprint_rollout_wave{blueprint="d-rolled-back"} 3
gatewright_blueprint_rollout_wave{blueprint="e-new"} 0
# HELP gatewright_blueprint_current_revision The blueprint's currentRevision: the revision its Gateways run unless a rollout assigned them a newer one.
# TYPE gatewright_blueprint_current_revision gauge
gatewright_blueprint_current_revision{blueprint="a-progressing"} 3
gatewright_blueprint_current_revision{blueprint="b-paused"} 3
gatewright_blueprint_current_revision{blueprint="c-complete"} 4
gatewright_blueprint_current_revision{blueprint="d-rolled-back"} 3
gatewright_blueprint_current_revision{blueprint="e-new"} 0
# HELP gatewright_blueprint_target_revision The blueprint's targetRevision: its newest revision.
# TYPE gatewright_blueprint_target_revision gauge
gatewright_blueprint_target_revision{blueprint="a-progressing"} 4
gatewright_blueprint_target_revision{blueprint="b-paused"} 4
gatewright_blueprint_target_revision{blueprint="c-complete"} 4
gatewright_blueprint_target_revision{blueprint="d-rolled-back"} 4
gatewright_blueprint_target_revision{blueprint="e-new"} 0
`)
	if err := testutil.CollectAndCompare(c, strings.NewReader(want.String()), names...); err != nil {
		t.Error(err)
	}

	primary = false
	if n := testutil.CollectAndCount(c, names...); n != 0 {
		t.Errorf("a shard that does not write blueprint status reported %d series", n)
	}
}

func TestCountRollbackCountsEachRollbackOnce(t *testing.T) {
	const bp = "counted"
	defer ForgetRollbacks(bp)
	progressing := &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: 4, From: 3, Phase: gatewrightv1alpha1.RolloutProgressing}
	rolledBack := &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: 4, From: 3, Phase: gatewrightv1alpha1.RolloutRolledBack}
	CountRollback(bp, nil, progressing)
	if got := testutil.ToFloat64(RolloutRollbacks.WithLabelValues(bp)); got != 0 {
		t.Fatalf("rollbacks %v before any, want the series at 0", got)
	}
	CountRollback(bp, progressing, rolledBack)
	CountRollback(bp, rolledBack, rolledBack) // stepped again: the same rollback
	if got := testutil.ToFloat64(RolloutRollbacks.WithLabelValues(bp)); got != 1 {
		t.Fatalf("rollbacks %v, want 1", got)
	}
	next := &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: 5, From: 3, Phase: gatewrightv1alpha1.RolloutRolledBack}
	CountRollback(bp, rolledBack, next) // the next revision, rolled back in its first step
	if got := testutil.ToFloat64(RolloutRollbacks.WithLabelValues(bp)); got != 2 {
		t.Fatalf("rollbacks %v, want 2", got)
	}
}
