package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatewright/gatewright/test/golden"
)

const diffWorld = "../../internal/diff/testdata/"

func TestDiffCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		exit     int
		golden   string // under testdata/diff; "" when the output is not checked
		inStderr string
	}{
		{name: "a tenant policy change prints the blocks it reaches and the summary, and exits 1",
			args: []string{"--base", diffWorld + "base.yaml", "-f", diffWorld + "tenant-policy.yaml"}, exit: 1, golden: "tenant-policy.out"},
		{name: "a change the schema refuses prints as JSON and exits 1",
			args: []string{"--base", diffWorld + "base.yaml", "-f", diffWorld + "schema-break.yaml", "-o", "json"}, exit: 1, golden: "schema-break.json.out"},
		{name: "--limit prints fewer blocks, and the summary counts them all",
			args: []string{"--base", diffWorld + "base.yaml", "-f", diffWorld + "provider-override.yaml", "--limit", "1"}, exit: 1, golden: "limit.out"},
		{name: "--delete removes an object from the cluster",
			args: []string{"--base", diffWorld + "base.yaml", "--delete", "httproute/team-a/shop", "-o", "json", "--limit", "5"}, exit: 1, golden: "delete.json.out"},
		{name: "a change that changes nothing exits 0",
			args: []string{"--base", diffWorld + "base.yaml", "-f", diffWorld + "no-op.yaml"}, exit: 0, golden: "no-op.out"},
		{name: "a blueprint edit from files without its status says it is a new revision that rolls out in waves",
			args: []string{"--base", diffWorld + "base.yaml", "-f", diffWorld + "template-change.yaml"}, exit: 1,
			inStderr: "note: GatewayClassBlueprint proxy: the change is a new revision, which its Gateways get in waves (1, 10%, 50%, 100%)"},
		{name: "a delete naming nothing is an error, exit 2",
			args: []string{"--base", diffWorld + "base.yaml", "--delete", "Gateway/team-a/nope"}, exit: 2, inStderr: "--delete Gateway/team-a/nope: no such object"},
		{name: "a missing file is an error, exit 2",
			args: []string{"--base", diffWorld + "base.yaml", "-f", "testdata/nothing-here"}, exit: 2, inStderr: "nothing-here"},
		{name: "an unknown flag is an error, exit 2",
			args: []string{"--bogus"}, exit: 2, inStderr: "unknown flag: --bogus"},
		{name: "an unknown output format is an error, exit 2",
			args: []string{"--base", diffWorld + "base.yaml", "-f", diffWorld + "no-op.yaml", "-o", "yaml"}, exit: 2, inStderr: "--output must be json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(append([]string{"diff"}, tt.args...))
			err := cmd.Execute()
			if got := exitCodeOf(err); got != tt.exit {
				t.Fatalf("exit %d (%v), want %d; stderr:\n%s", got, err, tt.exit, errOut.String())
			}
			if tt.golden != "" {
				golden.Check(t, filepath.Join("testdata", "diff", tt.golden), out.Bytes())
			}
			if !strings.Contains(errOut.String(), tt.inStderr) {
				t.Errorf("stderr %q does not say %q", errOut.String(), tt.inStderr)
			}
		})
	}
}

// exitCodeOf is the exit code main gives err: 0 for nil.
func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	return exitCode(err)
}

// Progress goes to stderr only past two seconds, then at most once a second, and
// always when the last Gateway is done.
func TestDiffProgress(t *testing.T) {
	var errOut bytes.Buffer
	now := time.Unix(0, 0)
	progress := progressOn(&errOut, func() time.Time { return now })
	for i, at := range []time.Duration{500 * time.Millisecond, 2500 * time.Millisecond, 3 * time.Second, 3600 * time.Millisecond, 3700 * time.Millisecond} {
		now = time.Unix(0, 0).Add(at)
		progress(i+1, 5)
	}
	if want := "diff: 2/5 Gateways\ndiff: 4/5 Gateways\ndiff: 5/5 Gateways\n"; errOut.String() != want {
		t.Errorf("stderr is %q, want %q", errOut.String(), want)
	}
}
