package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/test/golden"
)

// TestValuesOfTheWorkedExamples runs `gatewright values --provenance` on the worked
// examples of GEP-713 and of Kuadrant's Defaults & Overrides RFC, every Gateway and
// route of each, into one transcript per example.
func TestValuesOfTheWorkedExamples(t *testing.T) {
	tests := []struct {
		file     string
		contexts []string // Gateway, or Gateway and route
	}{
		{"gep713-ex2", []string{"gep/g1", "gep/g1 gep/r1", "gep/g1 gep/r2", "gep/g2", "gep/g2 gep/r3", "gep/g2 gep/r4"}},
		{"gep713-ex3", []string{"gep/g1", "gep/g1 gep/r1", "gep/g1 gep/r2", "gep/g2", "gep/g2 gep/r3", "gep/g2 gep/r4"}},
		{"rfc-defaults-overrides", []string{
			"rfc/a rfc/a-sets", "rfc/a rfc/a-empty", "rfc/b rfc/b", "rfc/c rfc/c", "rfc/d rfc/d",
			"rfc/e rfc/e-50", "rfc/e rfc/e-500", "rfc/f rfc/f",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var transcript bytes.Buffer
			for i, context := range tt.contexts {
				gateway, route, _ := strings.Cut(context, " ")
				args := []string{"values", "-f", filepath.Join("testdata", "values", tt.file+".yaml"), "--gateway", gateway}
				if route != "" {
					args = append(args, "--route", route)
				}
				args = append(args, "--provenance")
				if i > 0 {
					transcript.WriteString("\n")
				}
				fmt.Fprintf(&transcript, "$ gatewright %s\n", strings.Join(args, " "))
				cmd := newRootCommand()
				cmd.SetOut(&transcript)
				cmd.SetErr(&transcript) // warnings of conditions that failed closed
				cmd.SetArgs(args)
				if err := cmd.Execute(); err != nil {
					t.Fatalf("%s: %v", context, err)
				}
			}
			golden.Check(t, filepath.Join("testdata", "values", tt.file+".out"), transcript.Bytes())
		})
	}
}

func TestValuesOfARefusedPolicy(t *testing.T) {
	var out bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"values", "-f", filepath.Join("testdata", "values", "refused.yaml"), "--gateway", "team-a/web"})
	err := cmd.Execute()
	want := "GatewayClassConfig gatewright-system/limits: spec.override.when: does not compile: ERROR: <input>:1:16: Syntax error:"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want an error starting %q", err, want)
	}
	if out.Len() != 0 {
		t.Errorf("a refused policy printed values:\n%s", out.String())
	}
}

// TestAConditionThatFailsClosed runs values, render and their --strict forms where a
// tenant's string makes a provider's clip fail to evaluate: the clip applies, stderr
// names the policy, the block and the error, and --strict exits non-zero.
func TestAConditionThatFailsClosed(t *testing.T) {
	file := filepath.Join("testdata", "values", "failed-closed.yaml")
	warning := "warning: Gateway team-a/web: GatewayClassConfig gatewright-system/clip: spec.override.when: no such overload; its override applied (a condition that cannot be evaluated fails closed)\n"
	tests := []struct {
		name    string
		args    []string
		stdout  string
		wantErr string
	}{
		{"values", []string{"values", "-f", file, "--gateway", "team-a/web"}, "limits:\n  a:\n    limit: 100\n", ""},
		{"values --strict", []string{"values", "-f", file, "--gateway", "team-a/web", "--strict"}, "limits:\n  a:\n    limit: 100\n", "1 warning(s), and --strict is set"},
		{"render", []string{"render", "-f", file}, `limit: "100"`, ""},
		{"render --strict", []string{"render", "-f", file, "--strict"}, `limit: "100"`, "1 warning(s), and --strict is set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&stdout)
			cmd.SetErr(&stderr)
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			if (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if !strings.Contains(stdout.String(), tt.stdout) {
				t.Errorf("stdout:\n%s\nwant it to contain %q", stdout.String(), tt.stdout)
			}
			if !strings.HasPrefix(stderr.String(), warning) {
				t.Errorf("stderr:\n%s\nwant it to start with %q", stderr.String(), warning)
			}
		})
	}
}
