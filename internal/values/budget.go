package values

import (
	"context"
	"fmt"
	"time"
)

// Bounds on the work of conditions (when) over one computation. Each evaluation is held
// to MaxWhenCost and MaxWhenTime; together, the conditions of one computation share
// these, so that a chain of many conditions cannot multiply the bound of one.
const (
	// MaxConditionsCost bounds the cost units of all the conditions of one computation,
	// ten evaluations at MaxWhenCost. The last evaluation it lets start may use its own
	// bound in full, so the work stays under MaxConditionsCost + MaxWhenCost.
	MaxConditionsCost = 10 * MaxWhenCost
	// MaxConditionsTime bounds the time of all the conditions of one computation. Real
	// conditions take microseconds: only a condition working at its bounds, on a busy
	// machine, comes near it.
	MaxConditionsTime = time.Second
)

// conditionBudget is what the conditions of one computation may still use. Its clock
// starts at the first condition, so that a chain without any pays nothing.
type conditionBudget struct {
	ctx    context.Context
	cancel context.CancelFunc
	cost   uint64 // left
}

// evaluate evaluates c with self, charged to the budget; once the budget is spent,
// conditions are not evaluated and fail.
func (b *conditionBudget) evaluate(c *condition, self map[string]any) (bool, error) {
	if b.ctx == nil {
		b.ctx, b.cancel = context.WithTimeout(context.Background(), MaxConditionsTime)
		b.cost = MaxConditionsCost
	}
	switch {
	case b.cost == 0:
		return false, fmt.Errorf("not evaluated: the conditions of these values used up their %d cost units together", MaxConditionsCost)
	case b.ctx.Err() != nil:
		return false, fmt.Errorf("not evaluated: the conditions of these values used up their %s together", MaxConditionsTime)
	}
	holds, cost, err := c.holds(b.ctx, self)
	b.cost -= min(cost, b.cost)
	return holds, err
}

// stop releases the clock.
func (b *conditionBudget) stop() {
	if b.cancel != nil {
		b.cancel()
	}
}
