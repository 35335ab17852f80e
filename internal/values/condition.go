package values

import (
	"context"
	"fmt"
	"sync"
)

// Condition is a CEL expression over `self`, compiled and bounded as a policy's when
// is (MaxWhenBytes, MaxWhenCost, MaxWhenTime), for the other expressions Gatewright
// evaluates on data it does not control: a blueprint's readyWhen reads live objects.
type Condition struct {
	condition *condition
}

// CompileCondition compiles expression, or says why it does not compile. Expressions
// share the cache of when, keyed by their text.
func CompileCondition(expression string) (*Condition, error) {
	c, err := conditions().compile(expression)
	if err != nil {
		return nil, err
	}
	return &Condition{condition: c}, nil
}

// ConditionBudget is what a series of evaluations over one piece of work may use
// together, in cost units: a blueprint's readyWhen is evaluated over every object of a
// render, and a render may have thousands; each evaluation keeps its own bounds too. It
// counts no time across evaluations: the work between them (applies) is not theirs.
// Safe for concurrent use.
type ConditionBudget struct {
	mu   sync.Mutex
	cost uint64 // left
}

// NewConditionBudget is a budget of MaxConditionsCost units, as the conditions of one
// values computation have.
func NewConditionBudget() *ConditionBudget {
	return &ConditionBudget{cost: MaxConditionsCost}
}

// Holds evaluates c with self bound to object, charged to the budget; once the budget
// is spent, nothing is evaluated and the condition fails.
func (b *ConditionBudget) Holds(c *Condition, object map[string]any) (bool, error) {
	b.mu.Lock()
	left := b.cost
	b.mu.Unlock()
	if left == 0 {
		return false, fmt.Errorf("not evaluated: the expressions of this render used up their %d cost units together", MaxConditionsCost)
	}
	holds, cost, err := c.condition.holds(context.Background(), object)
	b.mu.Lock()
	b.cost -= min(cost, b.cost)
	b.mu.Unlock()
	return holds, err
}
