package values

import "context"

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

// Holds evaluates the condition with self bound to object, within MaxWhenCost and
// MaxWhenTime. An evaluation over either bound fails.
func (c *Condition) Holds(object map[string]any) (bool, error) {
	holds, _, err := c.condition.holds(context.Background(), object)
	return holds, err
}
