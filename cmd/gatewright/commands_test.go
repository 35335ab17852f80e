package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/test/golden"
)

func TestValuesCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"samples gateway as YAML", []string{"-f", "../../samples", "--gateway", "team-a/web"}, "values/samples.yaml.out"},
		{"samples gateway provenance table", []string{"-f", "../../samples", "--gateway", "team-a/web", "--provenance"}, "values/samples-provenance.out"},
		{"route chain as JSON", []string{"-f", "testdata/values/route-chain.yaml", "--gateway", "team-a/web", "--route", "team-b/shop", "-o", "json"}, "values/route-chain.json.out"},
		{"route chain provenance as JSON", []string{"-f", "testdata/values/route-chain.yaml", "--gateway", "team-a/web", "--route", "team-b/shop", "--provenance", "-o", "json"}, "values/route-chain-provenance.json.out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetArgs(append([]string{"values"}, tt.args...))
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tt.golden), out.Bytes())
		})
	}
}

func TestValuesCommandErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown Gateway", []string{"-f", "../../samples", "--gateway", "team-a/nope"}, "no Gateway team-a/nope in the input"},
		{"an unknown HTTPRoute", []string{"-f", "testdata/values/route-chain.yaml", "--gateway", "team-a/web", "--route", "team-b/missing"}, "no HTTPRoute team-b/missing"},
		{"a route not attached to the Gateway", []string{"-f", "testdata/values/route-chain.yaml", "--gateway", "team-a/web", "--route", "team-b/elsewhere"}, "HTTPRoute team-b/elsewhere has no parentRef to Gateway team-a/web"},
		{"an unknown output format", []string{"-f", "../../samples", "--gateway", "team-a/web", "-o", "xml"}, "--output must be yaml or json"},
		{"a missing file", []string{"-f", "testdata/nothing-here", "--gateway", "team-a/web"}, "nothing-here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newRootCommand()
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SetArgs(append([]string{"values"}, tt.args...))
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestRenderCommand(t *testing.T) {
	var out bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"render", "-f", "../../samples"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/render/samples.out.yaml", out.Bytes())
}

func TestRenderCommandFailsOnBadInput(t *testing.T) {
	tests := []struct {
		name string
		file string
		want string
	}{
		{"a template reading the environment", "testdata/render/env.yaml", `GatewayClassBlueprint leaky, template gateway/config, line 7: function "env" not defined`},
		{"values that break the schema", "testdata/render/schema.yaml", "values do not match the valuesSchema of GatewayClassBlueprint strict: replicas: should be less than or equal to 5, got 9 (set by GatewayConfig team-a/web as default at level 6)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&bytes.Buffer{})
			cmd.SetArgs([]string{"render", "-f", tt.file})
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("a failed render printed objects:\n%s", out.String())
			}
		})
	}
}

func TestLintCommand(t *testing.T) {
	var out bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"lint", "--strict", "-f", "testdata/render/env.yaml", "-f", "../../samples/provider/blueprint.yaml"})
	err := cmd.Execute()
	if err == nil {
		t.Fatal("lint passed a blueprint that does not parse")
	}
	golden.Check(t, "testdata/lint/output.out", out.Bytes())
}
