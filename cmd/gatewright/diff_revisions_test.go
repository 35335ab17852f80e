package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

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
