package values

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Bounds on the work of conditions (when) over one computation, and over the many
// computations of one judgement. Each evaluation is held to MaxWhenCost and MaxWhenTime;
// together, the conditions of one computation share MaxConditionsCost and
// MaxConditionsTime, so that a chain of many conditions cannot multiply the bound of
// one; and where one piece of work computes the values of many Gateways and routes (a
// policy's verdict over every context it reaches), the conditions that the policies of
// one namespace wrote share MaxSharedConditionsCost and MaxSharedConditionsTime over all
// of them, so that a tenant's conditions on its own Gateways cannot hold up the verdict
// of a provider's policy that reaches them too.
const (
	// MaxConditionsCost bounds the cost units of all the conditions of one computation,
	// ten evaluations at MaxWhenCost. The last evaluation it lets start may use its own
	// bound in full, so the work stays under MaxConditionsCost + MaxWhenCost.
	MaxConditionsCost = 10 * MaxWhenCost
	// MaxConditionsTime bounds the time of all the conditions of one computation. Real
	// conditions take microseconds: only a condition working at its bounds, on a busy
	// machine, comes near it.
	MaxConditionsTime = time.Second
	// MaxSharedConditionsCost bounds the cost units of the conditions of one namespace's
	// policies over the computations of one judgement: ten computations at their bound.
	// Conditions charge about a microsecond per unit at most (work is charged by what it
	// reads), so this is about a second.
	MaxSharedConditionsCost = 10 * MaxConditionsCost
	// MaxSharedConditionsTime bounds their time, for a machine too busy for the above.
	MaxSharedConditionsTime = 2 * time.Second
)

// conditionBudget is what the conditions of one computation may still use. Its clock
// starts at the first condition, so that a chain without any pays nothing.
type conditionBudget struct {
	ctx    context.Context
	cancel context.CancelFunc
	cost   uint64 // left
	// shared is what the conditions of each namespace may still use over the
	// computations of one judgement; nil when the computation stands alone.
	shared *SharedConditions
}

// evaluate evaluates c with self, charged to the budget and to the shared budget of
// namespace, the namespace of the policy that wrote c; once either is spent, conditions
// are not evaluated and fail. A condition already evaluated on the same values, by this
// computation or another, is not evaluated again (verdicts): its cost is charged all the
// same, so that the outcome is the same whether it was remembered or not.
func (b *conditionBudget) evaluate(c *condition, self map[string]any, namespace string) (bool, error) {
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
	if err := b.shared.left(namespace); err != nil {
		return false, err
	}
	key := verdictKey(c.expression, self)
	if v, ok := verdicts.get(key); ok {
		b.charge(namespace, v.cost, 0)
		return v.holds, v.err()
	}
	start := time.Now()
	holds, cost, err := c.holds(b.ctx, self)
	took := time.Since(start)
	b.charge(namespace, cost, took)
	// An evaluation cut short by a clock says how busy the machine was, not what the
	// condition gives: it is not remembered.
	if b.ctx.Err() == nil && took < MaxWhenTime {
		verdicts.put(key, verdict{holds: holds, cost: cost, failure: errorText(err)})
	}
	return holds, err
}

func (b *conditionBudget) charge(namespace string, cost uint64, took time.Duration) {
	b.cost -= min(cost, b.cost)
	b.shared.charge(namespace, cost, took)
}

// stop releases the clock.
func (b *conditionBudget) stop() {
	if b.cancel != nil {
		b.cancel()
	}
}

// SharedConditions is what the conditions written in each namespace may use over the
// computations of one judgement, MaxSharedConditionsCost units and
// MaxSharedConditionsTime each. Pass one in Inputs.Shared to every computation of the
// judgement. Safe for concurrent use; a nil *SharedConditions bounds nothing.
type SharedConditions struct {
	mu      sync.Mutex
	spent   map[string]spent // by namespace
	maxCost uint64
	maxTime time.Duration
}

type spent struct {
	cost uint64
	time time.Duration
}

// NewSharedConditions starts the budget of one judgement.
func NewSharedConditions() *SharedConditions {
	return &SharedConditions{spent: map[string]spent{}, maxCost: MaxSharedConditionsCost, maxTime: MaxSharedConditionsTime}
}

func (s *SharedConditions) left(namespace string) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	used := s.spent[namespace]
	s.mu.Unlock()
	switch {
	case used.cost >= s.maxCost:
		return fmt.Errorf("not evaluated: the conditions of namespace %q used up their %d cost units over the Gateways and routes judged together", namespace, s.maxCost)
	case used.time >= s.maxTime:
		return fmt.Errorf("not evaluated: the conditions of namespace %q used up their %s over the Gateways and routes judged together", namespace, s.maxTime)
	}
	return nil
}

func (s *SharedConditions) charge(namespace string, cost uint64, took time.Duration) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	used := s.spent[namespace]
	used.cost += cost
	used.time += took
	s.spent[namespace] = used
}
