package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// rolloutNow is the time the status tests read the blueprint at.
var rolloutNow = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// blueprintAt is a blueprint from YAML, whose times are offsets from rolloutNow in
// seconds written as "@-40".
func blueprintAt(t *testing.T, doc string) *gatewrightv1alpha1.GatewayClassBlueprint {
	t.Helper()
	doc = regexp.MustCompile(`@(-?\d+)`).ReplaceAllStringFunc(doc, func(offset string) string {
		d, err := time.ParseDuration(offset[1:] + "s")
		if err != nil {
			t.Fatal(err)
		}
		return rolloutNow.Add(d).Format(time.RFC3339)
	})
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
	if err := yaml.Unmarshal([]byte(doc), bp); err != nil {
		t.Fatal(err)
	}
	return bp
}

// oneSpaced is text with every run of spaces made one, so that lines are checked
// without the table's padding.
func oneSpaced(text string) string {
	return regexp.MustCompile(` +`).ReplaceAllString(text, " ")
}

// rollout status says where a rollout stands, in the words of its phase, with the time its
// gate has left counted from the status's times.
func TestRolloutStatusText(t *testing.T) {
	history := []gatewrightv1alpha1.GatewayClassBlueprintRevision{
		{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(rolloutNow.Add(-72 * time.Hour))}, Revision: 3},
		{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(rolloutNow.Add(-90 * time.Second))}, Revision: 4},
	}
	tests := []struct {
		name      string
		blueprint string
		want      []string
		// wantRaw are checked as printed, padding and all.
		wantRaw []string
		absent  []string
	}{
		{name: "a wave in progress has its deadline left",
			blueprint: `
metadata: {name: internet}
status:
  currentRevision: 3
  targetRevision: 4
  revisions: [{revision: 3, gateways: 9}, {revision: 4, gateways: 1}]
  rollout: {revision: 4, from: 3, phase: Progressing, wave: 0, updated: 1, waveStarted: "@-40"}`,
			want: []string{
				"Current revision: 3\n", "Target revision: 4\n", "Gateways: 10\n",
				"Settings: Waves 1, 10%, 50%, 100%; soak 30s; gate deadline 5m0s\n",
				"Rollout: revision 4 from revision 3: Progressing (the next wave starts once every Gateway of this one has been healthy for the soak)\n",
				"Wave: 1 of 4; 1 of 10 Gateways updated (wave sizes 1, 1, 5, 10)\n",
				"Wave started: 2026-11-27T11:59:20Z (40s ago)\n",
				"Gate deadline: 4m20s left\n",
			},
			wantRaw: []string{"REVISION  GATEWAYS  AGE  CURRENT  TARGET\n3         9         3d   *\n4         1         90s           *\n"}},
		{name: "a progressing wave past its deadline has none left",
			blueprint: `
metadata: {name: internet}
spec: {rollout: {waves: ["2", "100%"], gateDeadlineSeconds: 60, order: {namespaceLabel: tier}}}
status:
  currentRevision: 3
  targetRevision: 4
  revisions: [{revision: 3, gateways: 3}, {revision: 4, gateways: 2}]
  rollout: {revision: 4, from: 3, phase: Progressing, wave: 0, updated: 2, waveStarted: "@-61"}`,
			want: []string{
				"Settings: Waves 2, 100%; soak 30s; gate deadline 1m0s; ordered by namespace label tier\n",
				"Wave: 1 of 2; 2 of 5 Gateways updated (wave sizes 2, 5)\n",
				"Gate deadline: 0s left\n",
			},
		},
		{name: "a paused rollout shows its wave but no gate",
			blueprint: `
metadata: {name: internet}
spec: {rollout: {paused: true}}
status:
  currentRevision: 3
  targetRevision: 4
  revisions: [{revision: 3, gateways: 5}, {revision: 4, gateways: 5}]
  rollout: {revision: 4, from: 3, phase: Paused, wave: 2, updated: 5, waveStarted: "@-40"}`,
			want: []string{
				"; paused\n",
				"Rollout: revision 4 from revision 3: Paused (no wave starts and none is rolled back; resuming restarts the wave's gate)\n",
				"Wave: 3 of 4; 5 of 10 Gateways updated (wave sizes 1, 1, 5, 10)\n",
			},
			absent: []string{"Gate deadline:"}},
		{name: "a rollout held by an abort annotation that is not a revision says which",
			blueprint: `
metadata: {name: internet, annotations: {gatewright.dev/rollout-abort: "yes"}}
status:
  currentRevision: 3
  targetRevision: 4
  revisions: [{revision: 3, gateways: 9}, {revision: 4, gateways: 1}]
  rollout: {revision: 4, from: 3, phase: Paused, wave: 0, updated: 1, waveStarted: "@-40"}`,
			want: []string{
				`; held: annotation gatewright.dev/rollout-abort is "yes", not a revision number` + "\n",
				"Rollout: revision 4 from revision 3: Paused",
			}},
		{name: "a rolled-back rollout names the wave, the Gateways and the error",
			blueprint: `
metadata: {name: internet}
status:
  currentRevision: 3
  targetRevision: 4
  revisions: [{revision: 3, gateways: 10}, {revision: 4, gateways: 0}]
  rollout:
    revision: 4
    from: 3
    phase: RolledBack
    wave: 1
    updated: 1
    failure: {revision: 4, wave: 1, gateways: [team-a/web, team-b/api], moreGateways: 3, message: "Deployment team-a/web-proxy: not available"}`,
			want: []string{
				"Rollout: revision 4 from revision 3: RolledBack (its Gateways went back; the next change of the spec starts a new rollout)\n",
				"Failure: revision 4, wave 2 of 4; Gateways team-a/web, team-b/api and 3 more: Deployment team-a/web-proxy: not available\n",
			},
			absent: []string{"Wave:", "Gate deadline:"}},
		{name: "all at once is one wave without a soak",
			blueprint: `
metadata: {name: internet}
spec: {rollout: {strategy: AllAtOnce}}
status:
  currentRevision: 3
  targetRevision: 4
  revisions: [{revision: 3, gateways: 10}]
  rollout: {revision: 4, from: 3, phase: Progressing, wave: 0, updated: 10, waveStarted: "@-40"}`,
			want: []string{
				"Settings: AllAtOnce 100%; gate deadline 5m0s\n",
				"Wave: 1 of 1; 10 of 10 Gateways updated (wave sizes 10)\n",
			}},
		{name: "a blueprint with one revision has had no rollout",
			blueprint: `
metadata: {name: internet}
status: {currentRevision: 3, targetRevision: 3, revisions: [{revision: 3, gateways: 2}]}`,
			want: []string{"Rollout: none yet (a blueprint's first revision is current at once)\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := newRolloutReport(blueprintAt(t, tt.blueprint), history, rolloutNow).print(&out); err != nil {
				t.Fatal(err)
			}
			text := oneSpaced(out.String())
			for _, want := range tt.want {
				if !strings.Contains(text, want) {
					t.Errorf("the output lacks %q:\n%s", want, out.String())
				}
			}
			for _, want := range tt.wantRaw {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the output lacks %q:\n%s", want, out.String())
				}
			}
			for _, absent := range tt.absent {
				if strings.Contains(text, absent) {
					t.Errorf("the output has %q:\n%s", absent, out.String())
				}
			}
		})
	}
}

// undo goes back, by default, to what the Gateways run when the newest revision has not
// reached them all, else to the newest revision before it that still exists.
func TestUndoTarget(t *testing.T) {
	history := func(numbers ...int64) []gatewrightv1alpha1.GatewayClassBlueprintRevision {
		out := make([]gatewrightv1alpha1.GatewayClassBlueprintRevision, len(numbers))
		for i, n := range numbers {
			out[i].Revision = n
		}
		return out
	}
	tests := []struct {
		name            string
		current, target int64
		history         []gatewrightv1alpha1.GatewayClassBlueprintRevision
		to              int64
		rolledBack      int64 // the revision whose rollout was rolled back, if any
		force           bool
		want            int64
		wantErr         string
	}{
		{name: "with every Gateway on the newest, the one before it", current: 5, target: 5, history: history(3, 4, 5), want: 4},
		{name: "a deleted revision is skipped", current: 5, target: 5, history: history(2, 3, 5), want: 3},
		{name: "while a rollout is under way, what the Gateways run", current: 4, target: 5, history: history(3, 4, 5), want: 4},
		{name: "after a rollback, what the Gateways run", current: 4, target: 6, history: history(3, 4, 5, 6), want: 4},
		{name: "the revision asked for", current: 5, target: 5, history: history(3, 4, 5), to: 3, want: 3},
		{name: "a revision that does not exist is refused", current: 5, target: 5, history: history(3, 4, 5), to: 2,
			wantErr: "GatewayClassBlueprint internet has no revision 2; it has 3, 4, 5"},
		{name: "a first revision has nothing before it", current: 1, target: 1, history: history(1),
			wantErr: "GatewayClassBlueprint internet has no revision before its current revision 1; it has 1"},
		{name: "a blueprint without revisions has nothing to undo", history: history(),
			wantErr: "GatewayClassBlueprint internet has no revisions yet"},
		{name: "the revision rolled back is refused, naming --force", current: 4, target: 5, history: history(4, 5), to: 5, rolledBack: 5,
			wantErr: "the rollout of revision 5 of GatewayClassBlueprint internet was rolled back (its gate failed): undo goes back to a revision that worked; fix the spec instead, or, to set the spec to it anyway, --force"},
		{name: "the revision rolled back with --force", current: 4, target: 5, history: history(4, 5), to: 5, rolledBack: 5, force: true, want: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "internet"}}
			bp.Status.CurrentRevision, bp.Status.TargetRevision = tt.current, tt.target
			if tt.rolledBack != 0 {
				bp.Status.Rollout = &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: tt.rolledBack, From: tt.current, Phase: gatewrightv1alpha1.RolloutRolledBack}
			}
			rev, rolledBack, err := undoTarget(bp, tt.history, tt.to, tt.force)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || exitCode(err) != rolloutRefused {
					t.Fatalf("got %v, want the refusal %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rev.Revision != tt.want {
				t.Fatalf("went back to revision %d, want %d", rev.Revision, tt.want)
			}
			if rolledBack != (tt.rolledBack == tt.want) {
				t.Fatalf("undoTarget says the revision was rolled back: %v", rolledBack)
			}
		})
	}
}

// rollout without a known subcommand says so rather than printing its help and succeeding.
func TestRolloutUnknownSubcommand(t *testing.T) {
	cmd := newRootCommand()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"rollout", "restart", "internet"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), `unknown command "restart" for "gatewright rollout"`) {
		t.Fatalf("got %v, want an unknown command error", err)
	}
}
