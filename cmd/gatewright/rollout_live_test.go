package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/scheme"
	"github.com/gatewright/gatewright/test/testenv"
)

// rolloutFixture is a blueprint, the provider (the gatewright-provider role) and a
// viewer (gatewright-viewer: reads, writes nothing).
const rolloutFixture = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: internet}
spec:
  values: {default: {timeout: 30s}}
  gatewayTemplate: {}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: provider}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-provider}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: provider}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: viewer}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-viewer}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: viewer}]
`

// TestRolloutLive runs the rollout commands on a real API server, with the provider's
// and a viewer's rights, against a blueprint whose revisions and status the test writes
// as the controller would: revision 3 (timeout 30s, the live spec) rolling out from
// revision 2 (20s) to ten Gateways.
func TestRolloutLive(t *testing.T) {
	var roles []string
	for _, file := range []string{"provider_role.yaml", "viewer_role.yaml"} {
		role, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "rbac", file))
		if err != nil {
			t.Fatal(err)
		}
		roles = append(roles, string(role))
	}
	cfg, admin, kubeconfigFor := tenantCluster(t, strings.Join(roles, "\n---\n")+"\n---\n"+rolloutFixture)
	ctx := t.Context()
	provider, viewer := kubeconfigFor("provider"), kubeconfigFor("viewer")
	blueprint := func() *gatewrightv1alpha1.GatewayClassBlueprint {
		t.Helper()
		var bp gatewrightv1alpha1.GatewayClassBlueprint
		if err := admin.Get(ctx, client.ObjectKey{Name: "internet"}, &bp); err != nil {
			t.Fatal(err)
		}
		return &bp
	}
	writeRevisions(t, admin, blueprint(), map[int64]string{1: "10s", 2: "20s", 3: "30s"})
	waveStarted := metav1.NewTime(time.Now().Add(-40 * time.Second).Truncate(time.Second))
	setRollout := func(phase gatewrightv1alpha1.RolloutPhase) {
		t.Helper()
		bp := blueprint()
		bp.Status.CurrentRevision, bp.Status.TargetRevision = 2, 3
		bp.Status.Revisions = []gatewrightv1alpha1.RevisionGateways{{Revision: 1}, {Revision: 2, Gateways: 9}, {Revision: 3, Gateways: 1}}
		bp.Status.Rollout = &gatewrightv1alpha1.BlueprintRolloutStatus{
			Revision: 3, From: 2, Phase: phase, Updated: 1, WaveStarted: &waveStarted,
		}
		if err := admin.Status().Update(ctx, bp); err != nil {
			t.Fatal(err)
		}
	}
	setRollout(gatewrightv1alpha1.RolloutProgressing)

	t.Run("status shows the revisions, the wave with its sizes, the gate and the history", func(t *testing.T) {
		out, _, err := runGatewright(viewer, "rollout", "status", "internet")
		if err != nil {
			t.Fatal(err)
		}
		text := oneSpaced(out)
		for _, want := range []string{
			"Current revision: 2\n", "Target revision: 3\n", "Gateways: 10\n",
			"Rollout: revision 3 from revision 2: Progressing (",
			"Wave: 1 of 4; 1 of 10 Gateways updated (wave sizes 1, 1, 5, 10)\n",
			"Wave started: " + waveStarted.UTC().Format(time.RFC3339) + " (",
			"Gate deadline: ",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("the output lacks %q:\n%s", want, out)
			}
		}
		rows := historyRows(t, out)
		for revision, want := range map[string]string{"1": "0    ", "2": "9 *  ", "3": "1   *"} {
			if rows[revision] != want {
				t.Errorf("revision %s: GATEWAYS CURRENT TARGET are %q, want %q\n%s", revision, rows[revision], want, out)
			}
		}
	})

	t.Run("status -o json has the status's fields and what follows from them", func(t *testing.T) {
		out, _, err := runGatewright(provider, "rollout", "status", "internet", "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Blueprint       string
			CurrentRevision int64
			TargetRevision  int64
			Gateways        int
			Settings        struct {
				Strategy            string
				Waves               []string
				SoakSeconds         int64
				GateDeadlineSeconds int64
			}
			Rollout struct {
				Revision, From      int64
				Phase               string
				Wave, Waves         int
				WaveSizes           []int
				Updated             int
				WaveStarted         time.Time
				DeadlineLeftSeconds *int64
			}
			History []struct {
				Revision        int64
				Gateways        int
				Created         time.Time
				Current, Target bool
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		r := got.Rollout
		if got.Blueprint != "internet" || got.CurrentRevision != 2 || got.TargetRevision != 3 || got.Gateways != 10 ||
			got.Settings.Strategy != "Waves" || strings.Join(got.Settings.Waves, " ") != "1 10% 50% 100%" || got.Settings.SoakSeconds != 30 || got.Settings.GateDeadlineSeconds != 300 ||
			r.Revision != 3 || r.From != 2 || r.Phase != "Progressing" || r.Wave != 0 || r.Waves != 4 || !slices.Equal(r.WaveSizes, []int{1, 1, 5, 10}) || r.Updated != 1 ||
			!r.WaveStarted.Equal(waveStarted.Time) ||
			r.DeadlineLeftSeconds == nil || *r.DeadlineLeftSeconds <= 0 || *r.DeadlineLeftSeconds > 260 {
			t.Errorf("unexpected report:\n%s", out)
		}
		if len(got.History) != 3 || got.History[1].Revision != 2 || !got.History[1].Current || got.History[1].Gateways != 9 ||
			!got.History[2].Target || got.History[2].Current || got.History[0].Created.IsZero() {
			t.Errorf("unexpected history:\n%s", out)
		}
	})

	t.Run("pause and resume set spec.rollout.paused, once", func(t *testing.T) {
		for _, step := range []struct {
			command, want string
			paused        bool
		}{
			{"pause", "GatewayClassBlueprint internet: spec.rollout.paused set to true; the rollout is paused", true},
			{"pause", "GatewayClassBlueprint internet: spec.rollout.paused is true already; nothing changed", true},
			{"resume", "GatewayClassBlueprint internet: spec.rollout.paused set to false; the rollout is resumed", false},
			{"resume", "GatewayClassBlueprint internet: spec.rollout.paused is false already; nothing changed", false},
		} {
			out, _, err := runGatewright(provider, "rollout", step.command, "internet")
			if err != nil || !strings.Contains(out, step.want) {
				t.Fatalf("%s: %v, printed %q, want %q", step.command, err, out, step.want)
			}
			if rollout := blueprint().Spec.Rollout; rollout == nil || rollout.Paused != step.paused {
				t.Fatalf("after %s, spec.rollout is %+v", step.command, rollout)
			}
		}
	})

	t.Run("promote and abort annotate the rollout's revision, and refuse what cannot be done", func(t *testing.T) {
		tests := []struct {
			name       string
			phase      gatewrightv1alpha1.RolloutPhase
			args       []string
			want       string
			refused    bool
			annotation string
			forced     bool
		}{
			{name: "promote of another revision is refused", phase: gatewrightv1alpha1.RolloutProgressing, args: []string{"promote", "internet", "--revision", "2"}, refused: true,
				want: "GatewayClassBlueprint internet has no rollout of revision 2: the newest rollout is of revision 3 (Progressing)"},
			{name: "promote names the revision rolling out", phase: gatewrightv1alpha1.RolloutProgressing, args: []string{"promote", "internet"},
				want: "GatewayClassBlueprint internet: promoting revision 3", annotation: gatewrightv1alpha1.AnnotationRolloutPromote},
			{name: "abort names the revision rolling out", phase: gatewrightv1alpha1.RolloutPaused, args: []string{"abort", "internet"},
				want: "the Gateways that have it go back to revision 2", annotation: gatewrightv1alpha1.AnnotationRolloutAbort},
			{name: "promote of a complete rollout is refused", phase: gatewrightv1alpha1.RolloutComplete, args: []string{"promote", "internet", "--revision", "3"}, refused: true,
				want: "the rollout of revision 3 of GatewayClassBlueprint internet is complete already"},
			{name: "abort of a complete rollout is refused", phase: gatewrightv1alpha1.RolloutComplete, args: []string{"abort", "internet"}, refused: true,
				want: "is complete already: to go back, `gatewright rollout undo internet`"},
			{name: "abort of a rolled-back rollout is refused", phase: gatewrightv1alpha1.RolloutRolledBack, args: []string{"abort", "internet"}, refused: true,
				want: "the rollout of revision 3 of GatewayClassBlueprint internet was rolled back already"},
			{name: "promote of a rolled-back rollout is refused, naming --force", phase: gatewrightv1alpha1.RolloutRolledBack, args: []string{"promote", "internet"}, refused: true,
				want: "the rollout of revision 3 of GatewayClassBlueprint internet was rolled back (its gate failed); a revision that failed its gate is not promoted: fix the spec, which makes a new revision, or, to give it to every Gateway at once anyway, gatewright rollout promote internet --revision 3 --force"},
			{name: "promote --force of a rolled-back rollout annotates the force too, and says what it does", phase: gatewrightv1alpha1.RolloutRolledBack, args: []string{"promote", "internet", "--force"},
				want:       "promoting revision 3, which was rolled back (its gate failed), with --force (gatewright.dev/rollout-promote=3, gatewright.dev/rollout-force-promote=3): every Gateway of the blueprint's classes gets it at once, from revision 2, with no gate and nothing to roll it back",
				annotation: gatewrightv1alpha1.AnnotationRolloutPromote, forced: true},
			{name: "promote --force of a rollout under way is a promote", phase: gatewrightv1alpha1.RolloutProgressing, args: []string{"promote", "internet", "--force"},
				want: "GatewayClassBlueprint internet: promoting revision 3 (", annotation: gatewrightv1alpha1.AnnotationRolloutPromote},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				clearAnnotations(t, admin)
				setRollout(tt.phase)
				out, errOut, err := runGatewright(provider, append([]string{"rollout"}, tt.args...)...)
				if tt.refused {
					if exitCode(err) != rolloutRefused || !strings.Contains(errOut, tt.want) {
						t.Fatalf("got exit %d (%v), stderr %q; want exit 2 and %q", exitCode(err), err, errOut, tt.want)
					}
					if annotations := blueprint().Annotations; len(annotations) != 0 {
						t.Fatalf("a refusal annotated the blueprint: %v", annotations)
					}
					return
				}
				if err != nil || !strings.Contains(out, tt.want) {
					t.Fatalf("%v, printed %q, want %q", err, out, tt.want)
				}
				want := map[string]string{tt.annotation: "3"}
				if tt.forced {
					want[gatewrightv1alpha1.AnnotationRolloutForcePromote] = "3"
				}
				if got := blueprint().Annotations; !maps.Equal(got, want) {
					t.Fatalf("the blueprint's annotations are %v, want %v", got, want)
				}
			})
		}
	})

	t.Run("a viewer is told which verb on which resource was refused", func(t *testing.T) {
		setRollout(gatewrightv1alpha1.RolloutProgressing)
		for command, verb := range map[string]string{"pause": "patch", "promote": "patch", "undo": "update"} {
			_, errOut, err := runGatewright(viewer, "rollout", command, "internet")
			want := `User "viewer" cannot ` + verb + ` resource "gatewayclassblueprints" in API group "gatewright.dev"`
			if err == nil || exitCode(err) != 1 || !strings.Contains(errOut, want) {
				t.Errorf("%s: got %v, stderr %q; want exit 1 and %q", command, err, errOut, want)
			}
		}
	})

	t.Run("undo sets the spec to what the Gateways run, keeping spec.rollout", func(t *testing.T) {
		setRollout(gatewrightv1alpha1.RolloutRolledBack)
		patch := []byte(`{"spec":{"rollout":{"soakSeconds":45}}}`)
		if err := admin.Patch(ctx, blueprint(), client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
		out, _, err := runGatewright(provider, "rollout", "undo", "internet")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"spec set to revision 2's (spec.rollout kept)", "The controller makes it revision 4", "gatewright rollout promote internet --revision 4"} {
			if !strings.Contains(out, want) {
				t.Errorf("the output lacks %q:\n%s", want, out)
			}
		}
		bp := blueprint()
		if got := string(bp.Spec.Values.Default.Raw); got != `{"timeout":"20s"}` {
			t.Errorf("the blueprint's values are %s, want revision 2's", got)
		}
		if bp.Spec.Rollout == nil || bp.Spec.Rollout.SoakSeconds != 45 {
			t.Errorf("spec.rollout was not kept: %+v", bp.Spec.Rollout)
		}

		_, errOut, err := runGatewright(provider, "rollout", "undo", "internet", "--to-revision", "2")
		if want := "the spec of GatewayClassBlueprint internet is revision 2's already"; exitCode(err) != rolloutRefused || !strings.Contains(errOut, want) {
			t.Errorf("undo to the spec it has: exit %d, stderr %q, want %q", exitCode(err), errOut, want)
		}
		_, errOut, err = runGatewright(provider, "rollout", "undo", "internet", "--to-revision", "3")
		if want := "the rollout of revision 3 of GatewayClassBlueprint internet was rolled back (its gate failed): undo goes back to a revision that worked; fix the spec instead, or, to set the spec to it anyway, --force"; exitCode(err) != rolloutRefused || !strings.Contains(errOut, want) {
			t.Errorf("undo to the revision rolled back: exit %d, stderr %q, want %q", exitCode(err), errOut, want)
		}
		_, errOut, err = runGatewright(provider, "rollout", "undo", "internet", "--to-revision", "9")
		if want := "GatewayClassBlueprint internet has no revision 9; it has 1, 2, 3"; exitCode(err) != rolloutRefused || !strings.Contains(errOut, want) {
			t.Errorf("undo to a missing revision: exit %d, stderr %q, want %q", exitCode(err), errOut, want)
		}
	})

	t.Run("undo of a blueprint changed since it was read writes nothing and says to try again", func(t *testing.T) {
		base, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme.New()})
		if err != nil {
			t.Fatal(err)
		}
		meddling := interceptor.NewClient(base, interceptor.Funcs{
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				touch := []byte(`{"metadata":{"labels":{"touched":"yes"}}}`)
				if err := admin.Patch(ctx, blueprint(), client.RawPatch(types.MergePatchType, touch)); err != nil {
					return err
				}
				return c.Update(ctx, obj, opts...)
			},
		})
		err = runRolloutUndo(ctx, io.Discard, meddling, "internet", 1, false)
		if want := "GatewayClassBlueprint internet changed since undo read it; nothing was written: try again"; err == nil || err.Error() != want {
			t.Fatalf("got %v, want %q", err, want)
		}
		if got := string(blueprint().Spec.Values.Default.Raw); got != `{"timeout":"20s"}` {
			t.Errorf("the blueprint's values are %s, want them unchanged", got)
		}
	})

	t.Run("undo --force to the revision rolled back sets its spec and says no revision or rollout follows", func(t *testing.T) {
		setRollout(gatewrightv1alpha1.RolloutRolledBack)
		out, _, err := runGatewright(provider, "rollout", "undo", "internet", "--to-revision", "3", "--force")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"spec set back to revision 3's, which was rolled back, with --force",
			"It is the newest revision: no new revision, its rollout stays rolled back and the Gateways keep revision 2.",
			"gatewright rollout promote internet --revision 3 --force",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the output lacks %q:\n%s", want, out)
			}
		}
		if got := string(blueprint().Spec.Values.Default.Raw); got != `{"timeout":"30s"}` {
			t.Errorf("the blueprint's values are %s, want revision 3's", got)
		}
		_, errOut, err := runGatewright(provider, "rollout", "undo", "internet", "--to-revision", "3", "--force")
		if want := "the spec of GatewayClassBlueprint internet is revision 3's already; its rollout was rolled back and stays so: to give it to every Gateway at once, gatewright rollout promote internet --revision 3 --force"; exitCode(err) != rolloutRefused || !strings.Contains(errOut, want) {
			t.Errorf("undo --force to the spec it has: exit %d, stderr %q, want %q", exitCode(err), errOut, want)
		}
	})
}

// writeRevisions writes bp's revisions as the controller would: revision n with bp's
// spec and the default timeout timeouts[n], owned by bp.
func writeRevisions(t *testing.T, admin client.Client, bp *gatewrightv1alpha1.GatewayClassBlueprint, timeouts map[int64]string) {
	t.Helper()
	for n, timeout := range timeouts {
		spec := bp.Spec.DeepCopy()
		spec.Values.Default = &apiextensionsv1.JSON{Raw: []byte(`{"timeout":"` + timeout + `"}`)}
		hash, err := revisions.SpecHash(spec)
		if err != nil {
			t.Fatal(err)
		}
		rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{
			ObjectMeta: metav1.ObjectMeta{
				Name:   revisions.Name(bp.Name, n),
				Labels: revisions.Labels(bp.Name),
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: gatewrightv1alpha1.GroupVersion.String(), Kind: gatewrightv1alpha1.KindGatewayClassBlueprint,
					Name: bp.Name, UID: bp.UID, Controller: ptr.To(true),
				}},
			},
			Blueprint: bp.Name, Revision: n, Hash: hash, Spec: *spec,
		}
		if err := admin.Create(t.Context(), rev); err != nil {
			t.Fatal(err)
		}
	}
}

func clearAnnotations(t *testing.T, admin client.Client) {
	t.Helper()
	var bp gatewrightv1alpha1.GatewayClassBlueprint
	bp.Name = "internet"
	if err := admin.Patch(t.Context(), &bp, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":null}}`))); err != nil {
		t.Fatal(err)
	}
}

// runGatewright runs gatewright with args and the kubeconfig, and returns what it printed.
func runGatewright(kubeconfig string, args ...string) (string, string, error) {
	var out, errOut bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append(args, "--kubeconfig", kubeconfig))
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// historyRows are the rows of the history table of `rollout status`, by revision: the
// first character (or a space) under the GATEWAYS, CURRENT and TARGET headers, separated
// by spaces, so that a mark in the wrong column shows.
func historyRows(t *testing.T, out string) map[string]string {
	t.Helper()
	_, table, found := strings.Cut(out, "History:\n")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if !found || len(lines) < 2 {
		t.Fatalf("no history table:\n%s", out)
	}
	header := lines[0]
	cell := func(row, column string) string {
		i := strings.Index(header, column)
		if i >= len(row) {
			return " "
		}
		return row[i : i+1]
	}
	rows := map[string]string{}
	for _, row := range lines[1:] {
		revision, _, _ := strings.Cut(row, " ")
		rows[revision] = cell(row, "GATEWAYS") + " " + cell(row, "CURRENT") + " " + cell(row, "TARGET")
	}
	return rows
}
