package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// A failed reconcile is logged at error level and retried with backoff; each retry
// must be one line, without a stack trace of controller-runtime's frames.
func TestControllerLogsErrorsWithoutStackTraces(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantFrames bool
	}{
		{"by default", nil, false},
		{"in development mode", []string{"--zap-devel"}, false},
		{"unless asked for them", []string{"--zap-stacktrace-level=error"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts zap.Options
			flags := pflag.NewFlagSet("controller", pflag.ContinueOnError)
			bindLogFlags(flags, &opts)
			if err := flags.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			opts.DestWriter = &out
			zap.New(zap.UseFlagOptions(&opts)).Error(errors.New(`no matches for kind "Certificate"`), "Reconciler error")
			frames := strings.Contains(out.String(), "TestControllerLogsErrorsWithoutStackTraces")
			if frames != tt.wantFrames || (!frames && strings.Count(out.String(), "\n") != 1) {
				t.Errorf("stack trace: %t, want %t; got:\n%s", frames, tt.wantFrames, out.String())
			}
		})
	}
}
