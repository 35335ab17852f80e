package diff_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/diff"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/test/golden"
)

const controllerNamespace = "gatewright-system"

// compare loads testdata/base.yaml, applies the changes and deletes over it, and
// compares.
func compare(t *testing.T, changes string, deletes ...string) *diff.Report {
	t.Helper()
	base, err := offline.Load("testdata/base.yaml")
	if err != nil {
		t.Fatal(err)
	}
	changed := &offline.Set{}
	if changes != "" {
		if changed, err = offline.Load(filepath.Join("testdata", changes)); err != nil {
			t.Fatal(err)
		}
	}
	var refs []offline.Ref
	for _, d := range deletes {
		ref, err := offline.ParseRef(d)
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	after, err := base.With(changed, refs, controllerNamespace)
	if err != nil {
		t.Fatal(err)
	}
	report, err := diff.Compare(base, after, diff.Options{ControllerNamespace: controllerNamespace})
	if err != nil {
		t.Fatal(err)
	}
	return report
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name    string
		changes string
		deletes []string
		golden  string
		// reached is how many Gateways the change reaches: the others are not computed.
		reached int
	}{
		{name: "a template change updates the objects of every Gateway of the blueprint's class",
			changes: "template-change.yaml", golden: "template-change.json", reached: 2},
		{name: "a provider override changes a value of every Gateway, from the global policy",
			changes: "provider-override.yaml", golden: "provider-override.json", reached: 2},
		{name: "a tenant policy reaches only the Gateways and routes of its namespace",
			changes: "tenant-policy.yaml", golden: "tenant-policy.json", reached: 1},
		{name: "a template dropped prunes its objects",
			changes: "template-dropped.yaml", golden: "template-dropped.json", reached: 2},
		{name: "a value the schema refuses makes the Gateway fail and the policy Invalid, and changes no object",
			changes: "schema-break.yaml", golden: "schema-break.json", reached: 1},
		{name: "a manifest equal to the cluster's reaches nothing and changes nothing",
			changes: "no-op.yaml", golden: "no-op.json", reached: 0},
		{name: "a GRPCRoute added creates the objects of its kind's templates, apart from the HTTPRoute of its name, and reaches only its Gateway",
			changes: "grpc-route-added.yaml", golden: "grpc-route-added.json", reached: 1},
		{name: "a route deleted prunes its objects and leaves its parent's status",
			deletes: []string{"HTTPRoute/team-a/shop"}, golden: "route-deleted.json", reached: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			report := compare(t, tt.changes, tt.deletes...)
			if report.Summary.Gateways != tt.reached {
				t.Errorf("reached %d Gateways, want %d", report.Summary.Gateways, tt.reached)
			}
			got, err := json.MarshalIndent(report, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tt.golden), append(got, '\n'))
		})
	}
}

// A Secret's diff says which keys changed and never shows a value.
func TestCompareRedactsSecrets(t *testing.T) {
	report := compare(t, "secret-token.yaml")
	var secretDiff string
	for _, gw := range report.Gateways {
		for _, o := range gw.Objects {
			if o.Kind == "Secret" {
				secretDiff = o.Diff
			}
		}
	}
	if secretDiff == "" {
		t.Fatalf("no Secret updated in %+v", report.Gateways)
	}
	for _, value := range []string{"s3cret-one", "s3cret-two", "eu"} {
		if strings.Contains(secretDiff, value) {
			t.Errorf("the diff shows the value %q:\n%s", value, secretDiff)
		}
	}
	for _, line := range []string{"-  token: <redacted>\n", "+  token: <redacted, changed>\n", "   region: <redacted>\n"} {
		if !strings.Contains(secretDiff, line) {
			t.Errorf("the diff has no line %q:\n%s", line, secretDiff)
		}
	}
}
