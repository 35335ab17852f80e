package main

import (
	"strings"
	"testing"
)

func TestPrintRatiosGivesEachRoundInOrderAndTheMedian(t *testing.T) {
	for _, tc := range []struct {
		ratios []float64
		want   string
	}{
		{[]float64{1.5, 1.2, 1.4}, "by round: 1.50× 1.20× 1.40×; median 1.40×\n"},
		{[]float64{1.6, 1.2, 1.4, 1.3}, "by round: 1.60× 1.20× 1.40× 1.30×; median 1.35×\n"},
	} {
		var out strings.Builder
		printRatios(&out, "all Programmed", tc.ratios)
		if !strings.HasSuffix(out.String(), tc.want) {
			t.Errorf("%v: got %q, want it to end in %q", tc.ratios, out.String(), tc.want)
		}
	}
}

func TestChangeFiguresArePerChangedGatewayAndOnlyInRunsWithAChange(t *testing.T) {
	contender := func(name string, writes, events int) *result {
		return &result{Controller: name, Change: &changeResult{Change: changeGatewayConfig, ChangedGateways: 100,
			Window: tally{Writes: writes, Events: events, ByKind: map[string]int{"patch configmaps": 100, "create events": events}}}}
	}
	for _, tc := range []struct {
		name    string
		change  change
		want    []string
		wantNot []string
	}{
		{"a run with a change divides its writes by the Gateways it reached", changeGatewayConfig,
			[]string{"change: writes / changed Gateway  1.00  3.01  3.01×", "reaching 100 Gateways", "create events      0  100"}, nil},
		{"a run without one prints what it always printed", noChange, nil, []string{"change:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &report{Gateways: 1000, Change: tc.change, Results: []*result{contender("floor", 100, 0), contender("gatewright", 301, 100)}}
			var out strings.Builder
			rep.print(&out)
			squeezed := strings.Join(strings.Fields(out.String()), " ")
			for _, want := range tc.want {
				if !strings.Contains(squeezed, strings.Join(strings.Fields(want), " ")) {
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
