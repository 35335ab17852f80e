package values

import (
	"strings"
	"testing"
	"time"
)

// TestTheConditionsOfANamespaceShareABoundOverAJudgement computes the values of many
// Gateways of one judgement, each with a tenant condition near its own bound over
// values that differ from Gateway to Gateway (nothing is remembered): once the tenant's
// namespace has used its share, its conditions are no longer evaluated and fail closed,
// while the provider's still are.
func TestTheConditionsOfANamespaceShareABoundOverAJudgement(t *testing.T) {
	tenant, err := conditions().compile("self.l.all(x, x >= 0)")
	if err != nil {
		t.Fatal(err)
	}
	provider, err := conditions().compile("self.limit > 100")
	if err != nil {
		t.Fatal(err)
	}
	items := make([]any, 1900)
	for i := range items {
		items[i] = int64(i)
	}
	shared := NewSharedConditions()
	start := time.Now()
	evaluated := 0
	for gateway := range 1000 {
		self := map[string]any{"l": items, "gateway": int64(gateway), "limit": int64(500)}
		b := conditionBudget{shared: shared}
		_, err := b.evaluate(tenant, self, "team-a")
		switch {
		case err == nil, strings.Contains(err.Error(), "context deadline exceeded"):
			evaluated++ // on a busy machine, at its own bound of time
		case !strings.Contains(err.Error(), `not evaluated: the conditions of namespace "team-a" used up their`):
			t.Fatalf("Gateway %d: %v", gateway, err)
		}
		if holds, err := b.evaluate(provider, self, "gatewright-system"); err != nil || !holds {
			t.Fatalf("Gateway %d: the provider's condition: %v, %v", gateway, holds, err)
		}
		b.stop()
	}
	if evaluated == 0 || evaluated > 120 {
		t.Errorf("the tenant's condition was evaluated on %d of 1,000 Gateways; want the shared bound to stop it after about %d", evaluated, MaxSharedConditionsCost/9_500)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the judgement's conditions took %v", took)
	}
}

// TestAnOutcomeIsRememberedByExpressionAndValues: the same condition over the same values
// is evaluated once, and charged the same each time; other values are evaluated anew.
func TestAnOutcomeIsRememberedByExpressionAndValues(t *testing.T) {
	cond, err := conditions().compile("self.name.size() < 64000 && self.name != 'x'")
	if err != nil {
		t.Fatal(err)
	}
	self := map[string]any{"name": strings.Repeat("y", 60_000), "n": int64(1)}
	first := conditionBudget{}
	if _, err := first.evaluate(cond, self, "team-a"); err != nil {
		t.Fatal(err)
	}
	if _, kept := verdicts.get(verdictKey(cond.expression, self)); !kept {
		t.Fatal("the outcome was not kept")
	}
	again := conditionBudget{}
	holds, err := again.evaluate(cond, self, "team-a")
	if err != nil || !holds {
		t.Errorf("remembered: %v, %v", holds, err)
	}
	if again.cost != first.cost {
		t.Errorf("charged %d units left the first time, %d the second", first.cost, again.cost)
	}
	if verdictKey(cond.expression, self) == verdictKey(cond.expression, map[string]any{"name": strings.Repeat("y", 60_000), "n": 2.0}) {
		t.Error("other values have the same key")
	}
	first.stop()
	again.stop()
}
