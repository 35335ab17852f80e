package main

import (
	"strings"
	"testing"
)

func TestRestartFiguresAreInAllAndOnlyInRunsWithARestart(t *testing.T) {
	contender := func(name string, writes int, settled bool) *result {
		byKind := map[string]int{"list gateways": 1, "watch gateways": 1}
		if writes > 0 {
			byKind["patch configmaps"] = writes
		}
		return &result{Controller: name, Restart: &restartResult{ReadySeconds: 0.4, FirstReconcileSeconds: 1.5, AllReconciledSeconds: 6, Settled: settled,
			Window: tally{Writes: writes, Lists: 1, Watches: 1, Requests: writes + 2, ByKind: byKind}}}
	}
	for _, tc := range []struct {
		name    string
		restart bool
		settled bool
		want    []string
		wantNot []string
	}{
		{"a run with a restart counts its writes in all, not per Gateway", true, true,
			[]string{"restart: writes 5000 0", "restart: reconciles ≥ Gateways after (s) 6.0 6.0 1.00×",
				"restart over 1000 settled Gateways", "patch configmaps 5000 0", "list gateways 1 1"}, []string{"had not reconciled"}},
		{"a restart still busy when its window closed says so", true, false,
			[]string{"note: gatewright had not reconciled every Gateway or was still busy"}, nil},
		{"a run without one prints what it always printed", false, true, nil, []string{"restart"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &report{Gateways: 1000, Restart: tc.restart, Results: []*result{contender("floor", 5000, tc.settled), contender("gatewright", 0, tc.settled)}}
			var out strings.Builder
			rep.print(&out)
			squeezed := strings.Join(strings.Fields(out.String()), " ")
			for _, want := range tc.want {
				if !strings.Contains(squeezed, want) {
					t.Errorf("the report lacks %q:\n%s", want, out.String())
				}
			}
			for _, not := range tc.wantNot {
				if strings.Contains(out.String(), not) {
					t.Errorf("the report has %q:\n%s", not, out.String())
				}
			}
		})
	}
}

func TestFlagValueIsTheLastOfItsFlag(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command []string
		want    string
	}{
		{"a flag given once gives its value", []string{"gatewright", "controller", probeFlag + "127.0.0.1:8081"}, "127.0.0.1:8081"},
		{"a flag given twice gives the last", []string{"gatewright", probeFlag + "a:1", probeFlag + "b:2"}, "b:2"},
		{"a flag not given is empty", []string{"gatewright", metricsFlag + "a:1"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := flagValue(tc.command, probeFlag); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
