package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionString(t *testing.T) {
	built := func(version string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/gatewright/gatewright", Version: version}}
		for i := 0; i < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	tests := []struct {
		name            string
		version, commit string
		build           *debug.BuildInfo
		want            string
	}{
		{"the Makefile's stamp wins", "v0.2.0-3-gabc1234", "abc1234", built("(devel)", "vcs.revision", "abc1234ffffffffff"), "v0.2.0-3-gabc1234 (commit abc1234)"},
		{"go install ./cmd/gatewright in a checkout knows the commit", "", "", built("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "false"), "dev (commit 0123456789ab)"},
		{"uncommitted changes are marked", "", "", built("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), "dev (commit 0123456789ab-dirty)"},
		{"go install ...@version knows the version", "", "", built("v0.2.0"), "v0.2.0 (commit unknown)"},
		{"go run knows nothing", "", "", nil, "dev (commit unknown)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionString(tt.version, tt.commit, tt.build); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			var out bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetArgs([]string{"completion", shell})
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), shell+" completion") || !strings.Contains(out.String(), "__complete") {
				t.Errorf("not a %s completion script for gatewright:\n%.300s", shell, out.String())
			}
		})
	}
}
