package values

import (
	"context"

	"github.com/google/cel-go/common/types"
	"strings"
	"testing"
)

// TestWorkIsChargedByLength evaluates each condition over values of two lengths, ten
// times apart: the cost must grow with the length (where CEL's own estimate charged
// these calls 1 unit whatever they read), and over the longer values the evaluation
// stops at the bound and fails, quickly.
func TestWorkIsChargedByLength(t *testing.T) {
	withLength := func(n int) map[string]any {
		items := make([]any, n/10)
		for i := range items {
			items[i] = int64(i)
		}
		return map[string]any{"s": strings.Repeat("ab", n/2), "t": strings.Repeat("ab", n/2-1) + "ac", "l": items, "p": "(a|b)*c"}
	}
	tests := []struct{ name, when string }{
		{"size() of a string counts its bytes", "self.s.size() > 0"},
		{"size() as a function too", "size(self.s) > 0"},
		{"contains reads the string", "!self.s.contains('zz')"},
		{"startsWith reads the prefix", "!self.s.startsWith(self.t)"},
		{"endsWith reads the suffix", "!self.s.endsWith(self.t)"},
		{"matches reads the string times the pattern", "!self.s.matches(self.p)"},
		{"comparing strings reads the shorter", "self.s < self.t"},
		{"a conversion reads what it converts", "bytes(self.s).size() > 0"},
		{"in walks the list", "!(-1 in self.l)"},
		{"a loop pays per item", "self.l.all(x, x >= 0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cond, err := conditions().compile(tt.when)
			if err != nil {
				t.Fatal(err)
			}
			_, short, err := cond.holds(context.Background(), withLength(1_000))
			if err != nil {
				t.Fatalf("over 1,000 bytes: %v (cost %d)", err, short)
			}
			_, long, err := cond.holds(context.Background(), withLength(10_000))
			if err != nil {
				t.Fatalf("over 10,000 bytes: %v (cost %d)", err, long)
			}
			if long < 8*short {
				t.Errorf("cost %d over 1,000 bytes and %d over 10,000: not in proportion", short, long)
			}
			// Refused by its cost, not timed: a timed assertion fails on a loaded machine.
			_, over, err := cond.holds(context.Background(), withLength(480_000))
			if err == nil || over < MaxWhenCost {
				t.Errorf("over 480,000 bytes: cost %d, error %v; want it over the bound of %d", over, err, MaxWhenCost)
			}
		})
	}
}

// TestMatchesIsRefusedBeforeItRuns: matches is charged by its pattern's program, not its
// bytes, and a call over the bound is refused before it runs, whatever CEL would charge
// after it.
func TestMatchesIsRefusedBeforeItRuns(t *testing.T) {
	for _, tt := range []struct{ name, s, pattern, want string }{
		{"a short pattern with a large program", strings.Repeat("a", 400), "a.{1000}b.{1000}c",
			"matches not run: a string of 400 bytes against a pattern of 17 bytes would cost 41082 units, more than the 10000 of a condition"},
		{"a long pattern from the values", strings.Repeat("a", 40_000), strings.Repeat("(a|b)", 2_000) + "c",
			"matches not run: a string of 40000 bytes against a pattern of 10001 bytes would cost 10006501 units, more than the 10000 of a condition"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// "matches not run" says it was refused before it ran; no timing, which a
			// loaded machine would fail.
			got := boundedMatches(types.String(tt.s), types.String(tt.pattern))
			if err, isErr := got.(*types.Err); !isErr || err.Error() != tt.want {
				t.Errorf("got %v, want %q", got, tt.want)
			}
			cond, err := conditions().compile("self.s.matches(self.p)")
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := cond.holds(context.Background(), map[string]any{"s": tt.s, "p": tt.pattern}); err == nil {
				t.Error("the condition held")
			}
		})
	}
	if got := boundedMatches(types.String("web-01"), types.String("^[a-z]+-[0-9]+$")); got != types.True {
		t.Errorf("an ordinary match: %v", got)
	}
}

// TestOrdinaryConditionsCostLittle: the conditions of docs/policies.md, over ordinary
// values, stay far within the bound of one evaluation.
func TestOrdinaryConditionsCostLittle(t *testing.T) {
	hosts := make([]any, 50)
	for i := range hosts {
		hosts[i] = "host-" + strings.Repeat("x", i%20) + ".example.com"
	}
	self := map[string]any{"limits": map[string]any{"a": map[string]any{"limit": int64(500)}, "rps": int64(50)},
		"replicas": int64(3), "tls": map[string]any{"mode": "Terminate"}, "hosts": hosts, "region": "eu-west-1"}
	for _, when := range []string{
		"self.limits.a.limit > 100",
		"self.limits.rps > 100",
		"self.?limits.?a.?limit.orValue(0) > 100",
		"self.replicas > 10",
		"has(self.tls) && self.tls.mode == 'Terminate'",
		"self.hosts.exists(h, h.endsWith('.internal'))",
		"self.hosts.all(h, h.matches('^[a-z0-9.-]+$'))",
		"self.region.startsWith('eu-') && size(self.region) < 64",
	} {
		cond, err := conditions().compile(when)
		if err != nil {
			t.Fatal(err)
		}
		if _, cost, err := cond.holds(context.Background(), self); err != nil || cost > MaxWhenCost/10 {
			t.Errorf("%s: cost %d, error %v; want at most a tenth of %d", when, cost, err, MaxWhenCost)
		}
	}
}
