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
