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

func TestRenderCommandOverridesValues(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"--set mends what the schema refused", []string{"--set", "replicas=3"}, `replicas: "3"`},
		{"a values file given with -f", []string{"-f", "testdata/render/values.yaml"}, `replicas: "4"`},
		{"--set beats a values file", []string{"-f", "testdata/render/values.yaml", "--set", "replicas=2"}, `replicas: "2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetArgs(append([]string{"render", "-f", "testdata/render/schema.yaml"}, tt.args...))
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "\n  "+tt.want+"\n") {
				t.Errorf("the ConfigMap lacks %s:\n%s", tt.want, out.String())
			}
		})
	}
}

func TestRenderCommandPlacesAndShowsErrors(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantErr   string
		wantDebug string // what --debug prints before the error, "" for nothing
	}{
		{
			name:    "an error in a template names the line of the file",
			args:    []string{"-f", "testdata/render/env.yaml"},
			wantErr: `testdata/render/env.yaml:15: GatewayClassBlueprint leaky, template gateway/config, line 7: function "env" not defined`,
		},
		{
			name:    "--debug shows the template, numbered, the line marked",
			args:    []string{"-f", "testdata/render/env.yaml", "--debug"},
			wantErr: `testdata/render/env.yaml:15: GatewayClassBlueprint leaky`,
			wantDebug: `The template gateway/config of GatewayClassBlueprint leaky:
  1 | apiVersion: v1
  2 | kind: ConfigMap
  3 | metadata:
  4 |   name: leak
  5 | data:
  6 |   name: {{ .Gateway.metadata.name }}
> 7 |   home: {{ env "HOME" }}
`,
		},
		{
			name:    "an error about the rendered text says how to see it",
			args:    []string{"-f", "testdata/render/unquoted.yaml"},
			wantErr: "yaml: line 6: mapping values are not allowed in this context (--debug prints the rendered text)",
		},
		{
			name:    "--debug shows the rendered text the error names a line of",
			args:    []string{"-f", "testdata/render/unquoted.yaml", "--debug"},
			wantErr: "GatewayClassBlueprint unquoted, template gateway/config: the rendered output is not valid YAML: document 1: yaml: line 6: mapping values are not allowed in this context",
			wantDebug: `The text that template gateway/config of GatewayClassBlueprint unquoted rendered:
  1 | apiVersion: v1
  2 | kind: ConfigMap
  3 | metadata:
  4 |   name: motd
  5 | data:
> 6 |   motd: welcome: all
`,
		},
		{
			name:    "the schema is checked on the values --set gives",
			args:    []string{"-f", "testdata/render/schema.yaml", "--set", "replicas=6"},
			wantErr: "with the overrides, values do not match the valuesSchema of GatewayClassBlueprint strict: replicas: should be less than or equal to 5, got 6",
		},
		{
			name:    "--set takes Helm's syntax",
			args:    []string{"-f", "testdata/render/schema.yaml", "--set", "replicas"},
			wantErr: `--set replicas: key "replicas" has no value`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(append([]string{"render"}, tt.args...))
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
			}
			if debug, _, _ := strings.Cut(errOut.String(), "Error: "); debug != tt.wantDebug {
				t.Errorf("printed before the error:\n%s\nwant:\n%s", debug, tt.wantDebug)
			}
			if out.Len() != 0 {
				t.Errorf("a failed render printed objects:\n%s", out.String())
			}
		})
	}
}

func TestRenderCompletesGatewayNames(t *testing.T) {
	var out bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"__complete", "render", "-f", "../../samples", "--gateway", ""})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "team-a/web\n") {
		t.Errorf("got completions %q, want team-a/web", out.String())
	}
}

func TestLintCommand(t *testing.T) {
	var out bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"lint", "--strict", "-f", "testdata/render/env.yaml", "-f", "../../samples/provider/blueprint.yaml", "-f", "testdata/lint/typo.yaml", "-f", "testdata/lint/readywhen.yaml"})
	err := cmd.Execute()
	if err == nil {
		t.Fatal("lint passed a blueprint that does not parse")
	}
	golden.Check(t, "testdata/lint/output.out", out.Bytes())
}
