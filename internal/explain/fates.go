package explain

import (
	"errors"
	"strings"

	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// What became of a value a policy sets, in one context.
const (
	fateInEffect        = "InEffect"
	fateOverridden      = "Overridden"
	fateWhenFalse       = "WhenFalse"
	fateUnsetRefused    = "UnsetRefused"
	fateRefusedBySchema = "RefusedBySchema"
)

// ValueFate is what became of one value of the policy in one context.
type ValueFate struct {
	Path string      `json:"path"`
	As   values.Half `json:"as"`
	Fate string      `json:"fate"`
	// By is, for Overridden, what took effect instead; for UnsetRefused, what set the
	// value the null would have removed.
	By *values.Origin `json:"by,omitempty"`
	// Strategy is, for Overridden, that of the block that decided.
	Strategy values.Strategy `json:"strategy,omitempty"`
	// FailedClosed is set when the value's half applied only because its condition
	// could not be evaluated: the condition's error.
	FailedClosed string `json:"failedClosed,omitempty"`
	// Message is, for RefusedBySchema, what the valuesSchema says.
	Message string `json:"message,omitempty"`
}

// ContextFates is what became of the policy's values in one context: the fate of each,
// or why there are none.
type ContextFates struct {
	// NotComputed says why the context has no values: its class, blueprint or inputs.
	NotComputed string `json:"notComputed,omitempty"`
	// TakesNoPart is set when the context's values are computed without the policy.
	TakesNoPart bool        `json:"takesNoPart,omitempty"`
	Values      []ValueFate `json:"values,omitempty"`
	// Notes are what refused the context's values as a whole, such as a sum over a
	// bound, or a valuesSchema violation at none of the policy's own paths.
	Notes []string `json:"notes,omitempty"`
}

// fatesOf says what became of each of sets, the values of the policy source, in the
// values res of one context.
func fatesOf(source values.Source, sets []values.SetValue, res *translate.Result) ContextFates {
	var sumErr *values.SumLimitError
	if res.Values == nil && errors.As(res.Err, &sumErr) {
		// As the policy's status says it: naming nothing its readers may not read.
		return ContextFates{NotComputed: sumErr.MessageFor(source.Namespace)}
	}
	if res.Values == nil {
		return ContextFates{NotComputed: res.Err.Error()}
	}
	i := -1
	for j, p := range res.Values.Policies {
		if p.Source == source {
			i = j
		}
	}
	if i < 0 {
		return ContextFates{TakesNoPart: true}
	}
	report := res.Values.Policies[i]
	violations := violationsBy(source, res.Err)
	explained := map[string]bool{}
	var out ContextFates
	for _, set := range sets {
		fate := fateOf(report, set, violations, explained)
		out.Values = append(out.Values, fate)
	}
	for _, v := range violations {
		if !explained[v.Path] {
			out.Notes = append(out.Notes, "refused by the valuesSchema: "+v.Path+": "+v.Message)
		}
	}
	if errors.As(res.Err, &sumErr) {
		out.Notes = append(out.Notes, sumErr.MessageFor(source.Namespace))
	}
	return out
}

// fateOf is what became of set; the violations it explains are marked in explained.
func fateOf(report values.PolicyReport, set values.SetValue, violations []values.Violation, explained map[string]bool) ValueFate {
	fate := ValueFate{Path: set.Path, As: set.As, Fate: fateInEffect}
	if whenFalse(report, set.As) {
		fate.Fate = fateWhenFalse
		return fate
	}
	for _, f := range report.FailedClosed {
		if f.As == set.As {
			fate.FailedClosed = f.Error
		}
	}
	for _, u := range report.RefusedUnsets {
		if u.Path == set.Path && u.As == set.As {
			by := u.SetBy
			fate.Fate, fate.By = fateUnsetRefused, &by
			return fate
		}
	}
	for _, o := range report.Overridden {
		if o.Path == set.Path && o.As == set.As {
			by := o.By
			fate.Fate, fate.By, fate.Strategy = fateOverridden, &by, o.Strategy
			return fate
		}
	}
	for _, v := range violations {
		if within(set.Path, v.Path) || within(v.Path, set.Path) {
			if fate.Fate != fateRefusedBySchema {
				fate.Fate, fate.Message = fateRefusedBySchema, v.Message
			}
			explained[v.Path] = true
		}
	}
	return fate
}

// whenFalse tells whether the half's condition was false at every level the policy
// took part at, so that none of its values applied.
func whenFalse(report values.PolicyReport, half values.Half) bool {
	count := 0
	for _, n := range report.NotApplied {
		if n.As == half {
			count++
		}
	}
	return count > 0 && count >= len(report.Levels)
}

// violationsBy are the valuesSchema violations of err at values source set.
func violationsBy(source values.Source, err error) []values.Violation {
	var schemaErr *values.SchemaError
	if !errors.As(err, &schemaErr) {
		return nil
	}
	var out []values.Violation
	for _, v := range schemaErr.Violations {
		if v.SetBy != nil && v.SetBy.Source == source {
			out = append(out, v)
		}
	}
	return out
}

// within tells whether path is at or under parent.
func within(path, parent string) bool {
	return path == parent || strings.HasPrefix(path, parent+".") || strings.HasPrefix(path, parent+"[")
}
