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
		printRatios(&out, tc.ratios)
		if !strings.HasSuffix(out.String(), tc.want) {
			t.Errorf("%v: got %q, want it to end in %q", tc.ratios, out.String(), tc.want)
		}
	}
}
