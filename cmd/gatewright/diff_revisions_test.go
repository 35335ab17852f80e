package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/test/golden"
)

// diff compares what each Gateway runs now, the revision its Rendering or its
// blueprint's currentRevision names, with what it will run: a blueprint edit's new
// revision, reached by the rollout, or, for any other change, the same revision.
func TestDiffWithRevisions(t *testing.T) {
	const world = "testdata/diff-revisions/"
	tests := []struct {
		name     string
		changes  string
		golden   string
		inStderr string
	}{
		{name: "a blueprint edit takes each Gateway from the revision it runs to the new one, in waves",
			changes: "blueprint-edit.yaml", golden: "revision-blueprint-edit.out",
			inStderr: "note: GatewayClassBlueprint bp: the change is revision 3, which its Gateways get in waves (1, 10%, 50%, 100%), each held until its Gateways are healthy (spec.rollout); after is what they run once it reaches them\n"},
		{name: "a blueprint edit whose abort annotation is not a revision number says the rollout is held",
			changes: "blueprint-edit-held.yaml", golden: "revision-blueprint-edit.out",
			inStderr: `note: GatewayClassBlueprint bp: the change is revision 3, which its Gateways get in waves (1, 10%, 50%, 100%), each held until its Gateways are healthy (spec.rollout), once the rollout is no longer held (annotation gatewright.dev/rollout-abort is "yes", not a revision number); after is what they run once it reaches them` + "\n"},
		{name: "a policy edit computes both sides with the revision each Gateway runs",
			changes: "policy-edit.yaml", golden: "revision-policy-edit.out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs([]string{"diff", "--base", world + "base.yaml", "-f", world + tt.changes})
			if err := cmd.Execute(); exitCodeOf(err) != diffChanged {
				t.Fatalf("exit %d (%v), want %d; stderr:\n%s", exitCodeOf(err), err, diffChanged, errOut.String())
			}
			golden.Check(t, filepath.Join("testdata", "diff", tt.golden), out.Bytes())
			if tt.inStderr == "" && errOut.Len() > 0 || !strings.Contains(errOut.String(), tt.inStderr) {
				t.Errorf("stderr is %q, want %q", errOut.String(), tt.inStderr)
			}
		})
	}
}

// On a real API server, diff reads the revisions and the Gateways' Renderings: the
// admin's report is the offline one over the same cluster; a tenant who may not read
// the revisions gets the live spec on both sides, and notes that say so.
func TestDiffLiveWithRevisions(t *testing.T) {
	const world = "testdata/diff-revisions/"
	base, err := os.ReadFile(world + "base.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The API server gives the blueprint its uid and ignores its status; the revisions
	// are written as the controller writes them.
	var objects []string
	for _, doc := range strings.Split(strings.Replace(string(base), ", uid: bp-uid", "", 1), "\n---\n") {
		if !strings.Contains(doc, "kind: "+gatewrightv1alpha1.KindGatewayClassBlueprintRevision+"\n") {
			objects = append(objects, doc)
		}
	}
	_, admin, kubeconfigFor := tenantCluster(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: gatewright-system}\n---\n"+
		strings.Join(objects, "\n---\n")+"\n---\n"+tenantAccess)
	live := &gatewrightv1alpha1.GatewayClassBlueprint{}
	if err := admin.Get(t.Context(), client.ObjectKey{Name: "bp"}, live); err != nil {
		t.Fatal(err)
	}
	liveSpec, err := yaml.Marshal(live.Spec)
	if err != nil {
		t.Fatal(err)
	}
	writeRevisionSpecs(t, admin, "bp", 1, strings.Replace(string(liveSpec), "version: two", "version: one", 1), string(liveSpec))
	tests := []struct {
		name       string
		kubeconfig string
		changes    string
		sameAs     string // the offline golden report
		inOut      string
		inStderr   []string
		partial    bool
		exit       int
	}{
		{name: "the admin's diff of a blueprint edit is the offline one", kubeconfig: kubeconfigFor(""), exit: diffChanged,
			changes: "blueprint-edit.yaml", sameAs: "revision-blueprint-edit.out",
			inStderr: []string{"note: GatewayClassBlueprint bp: the change is revision 3"}},
		{name: "the admin's diff of a policy edit is the offline one", kubeconfig: kubeconfigFor(""), exit: diffChanged,
			changes: "policy-edit.yaml", sameAs: "revision-policy-edit.out"},
		{name: "a tenant who may not read the revisions gets no diff, and is told which", kubeconfig: kubeconfigFor("team-a-owner"), exit: diffFailed,
			changes: "policy-edit.yaml",
			inStderr: []string{"cannot read GatewayClassBlueprintRevisions (cluster-scoped): missing permission list gatewayclassblueprintrevisions.gatewright.dev; " +
				"Gateways are computed with their blueprint's live spec, not the revision they run\n"}},
		{name: "with --partial, a tenant who may not read the revisions gets the live spec, marked partial", kubeconfig: kubeconfigFor("team-a-owner"), exit: diffChanged,
			changes: "policy-edit.yaml", partial: true, inOut: "-  greeting: hello\n      +  greeting: hi\n         version: two\n",
			inStderr: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			args := []string{"diff", "--kubeconfig", tt.kubeconfig, "-n", "team-a", "-f", world + tt.changes}
			if tt.partial {
				args = append(args, "--partial")
			}
			cmd.SetArgs(args)
			if err := cmd.Execute(); exitCodeOf(err) != tt.exit {
				t.Fatalf("exit %d (%v), want %d; stderr:\n%s", exitCodeOf(err), err, tt.exit, errOut.String())
			}
			if tt.partial && !strings.Contains(out.String(), "PARTIAL: ") {
				t.Errorf("the partial report does not say so:\n%s", out.String())
			}
			if tt.sameAs != "" {
				golden.Check(t, filepath.Join("testdata", "diff", tt.sameAs), out.Bytes())
			}
			if !strings.Contains(out.String(), tt.inOut) {
				t.Errorf("the report lacks %q:\n%s", tt.inOut, out.String())
			}
			for _, want := range tt.inStderr {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr %q does not say %q", errOut.String(), want)
				}
			}
		})
	}
}
