package values

import (
	"fmt"
	"sort"
)

// State sums up how much of a policy took effect, in the words of GEP-713: Enforced
// (all of it), PartiallyEnforced, or Overridden (none of it).
type State string

const (
	Enforced          State = "Enforced"
	PartiallyEnforced State = "PartiallyEnforced"
	Overridden        State = "Overridden"
)

// PolicyReport says what of a policy took effect in one computation, and why not the rest.
type PolicyReport struct {
	Source Source `json:"source"`
	// Levels the policy was applied at (a config may target a namespace and a Gateway).
	Levels []Level `json:"levels"`
	// Leaves counts the leaves the policy sets, in the halves that applied.
	Leaves int `json:"leaves"`
	// Overridden lists the leaves whose effective value came from elsewhere.
	Overridden []OverriddenLeaf `json:"overridden,omitempty"`
	// NotApplied lists the halves whose condition (when) was false.
	NotApplied []NotApplied `json:"notApplied,omitempty"`
	// FailedClosed lists the halves whose condition could not be evaluated, and which
	// therefore applied.
	FailedClosed []FailedCondition `json:"failedClosed,omitempty"`
	// RefusedUnsets lists the values the policy tried to remove although the blueprint
	// forbids tenants to unset inherited values.
	RefusedUnsets []RefusedUnset `json:"refusedUnsets,omitempty"`
}

// OverriddenLeaf is a value a policy set that did not take effect.
type OverriddenLeaf struct {
	Path string `json:"path"`
	As   Half   `json:"as"`
	// By is what took effect instead: the block whose value is there, or that removed
	// the value; for a default that gave way whole (Atomic, or a key under Merge), the
	// values below it.
	By Origin `json:"by"`
	// Strategy decided: that of the higher of the two blocks.
	Strategy Strategy `json:"strategy"`
}

// NotApplied is a half of a policy that took no part at one level because its
// condition was false.
type NotApplied struct {
	As    Half  `json:"as"`
	Level Level `json:"level"`
}

// FailedCondition is a half of a policy whose condition could not be evaluated at one
// level, and which applied for that reason.
type FailedCondition struct {
	As    Half  `json:"as"`
	Level Level `json:"level"`
	// Error names the field and the fault: spec.override.when: no such key: limits.
	Error string `json:"error"`
}

// RefusedUnset is a null of a tenant's policy that was ignored because the blueprint
// forbids tenants to unset inherited values.
type RefusedUnset struct {
	Path string `json:"path"`
	As   Half   `json:"as"`
	// Value is what the null would have removed, and SetBy the block that set it.
	Value any    `json:"value"`
	SetBy Origin `json:"setBy"`
}

// State of the policy: Enforced when nothing it sets was overridden. Halves whose
// condition was false do not count: they are not meant to apply.
func (r PolicyReport) State() State {
	switch {
	case len(r.Overridden) == 0:
		return Enforced
	case len(r.Overridden) < r.Leaves:
		return PartiallyEnforced
	default:
		return Overridden
	}
}

// OverriddenBy lists, without repeats and in order of appearance, the objects that
// overrode this policy's values (other than the policy itself).
func (r PolicyReport) OverriddenBy() []Source {
	seen := map[Source]bool{r.Source: true}
	var by []Source
	for _, o := range r.Overridden {
		if !seen[o.By.Source] {
			seen[o.By.Source] = true
			by = append(by, o.By.Source)
		}
	}
	return by
}

// reports compares what each policy of the chain set with what the fold kept. The
// chain is listed from the highest block down, so the reports come in chain order.
func (f *folder) reports(chain []placed) []PolicyReport {
	var out []PolicyReport
	index := map[Source]int{}
	for i := len(chain) - 1; i >= 0; i-- {
		p := chain[i]
		if k, seen := index[p.source]; seen {
			out[k].Levels = append(out[k].Levels, p.level)
			continue
		}
		index[p.source] = len(out)
		refused := f.refused[p.source]
		sort.Slice(refused, func(i, j int) bool {
			a, b := refused[i], refused[j]
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			if a.As != b.As {
				return a.As < b.As
			}
			return a.SetBy.String() < b.SetBy.String()
		})
		report := PolicyReport{Source: p.source, Levels: []Level{p.level}, NotApplied: f.notApplied[p.source], FailedClosed: f.failedClosed[p.source], RefusedUnsets: refused}
		for _, half := range []Half{Default, Override} {
			if b := p.decoded.half(half); b != nil && f.applied[halfOf{p.source, half}] {
				c := comparison{folder: f, report: &report, half: half, strategy: b.strategy, losses: f.losses[halfOf{p.source, half}]}
				c.compare(b.values, f.acc, nil)
			}
		}
		out = append(out, report)
	}
	return out
}

// comparison walks one half of a policy alongside the folded values.
type comparison struct {
	*folder
	report   *PolicyReport
	half     Half
	strategy Strategy
	losses   map[string]loss
}

// compare counts the leaves of patch and notes those whose value came from elsewhere.
// Like tree.leaves, it appends to one shared path instead of copying it at every level.
func (c comparison) compare(patch map[string]any, node *tree, path []string) {
	for _, key := range sortedKeys(patch) {
		value, at := patch[key], append(path, key)
		var e *entry
		if node != nil {
			e = node.fields[key]
		}
		object, isObject := value.(map[string]any)
		switch {
		case isObject && len(object) > 0 && e != nil && e.object != nil:
			c.compare(object, e.object, at)
		case isObject && len(object) > 0:
			// Something else replaced, unset or dropped the whole object.
			eachLeaf(object, at, func(leaf []string, _ any) { c.judge(leaf, e) })
		case isObject && e != nil && e.object != nil:
			c.report.Leaves++ // an empty object merges into any object: it cannot lose
		default:
			c.judge(at, e)
		}
	}
}

// judge counts the leaf at path, where the folded values hold e (or the entry that
// stands in its place), as in effect or lost.
func (c comparison) judge(path []string, e *entry) {
	c.report.Leaves++
	if e != nil && e.origin.Source == c.report.Source && e.origin.As == c.half {
		return
	}
	at := renderPath(path)
	lost := func(by Origin, strategy Strategy) {
		c.report.Overridden = append(c.report.Overridden, OverriddenLeaf{Path: at, As: c.half, By: by, Strategy: strategy})
	}
	if l, gaveWay := c.losses[at]; gaveWay {
		lost(l.by, l.strategy)
		return
	}
	if e != nil {
		// An override took effect with its own strategy; a default beat this one by
		// being lower, so this one's strategy was the one that chose.
		strategy := c.strategy
		if e.origin.As == Override {
			strategy = e.origin.Strategy
		}
		lost(e.origin, strategy)
		return
	}
	for i := len(path); i > 0; i-- {
		if d, ok := c.drops[renderPath(path[:i])]; ok {
			lost(d.by, d.by.Strategy)
			return
		}
	}
	// A null that unset the leaf before an override dropped the null: the leaf stays
	// lost to it, as it is when nothing drops the null.
	if by, ok := c.droppedUnsets[at]; ok && (by.Source != c.report.Source || by.As != c.half) {
		lost(by, c.strategy)
	}
}

// eachLeaf visits the leaves of patch (empty objects and nulls included); visit must
// not keep the path, which is shared.
func eachLeaf(patch map[string]any, path []string, visit func(path []string, value any)) {
	for _, key := range sortedKeys(patch) {
		at := append(path, key)
		if object, ok := patch[key].(map[string]any); ok && len(object) > 0 {
			eachLeaf(object, at, visit)
			continue
		}
		visit(at, patch[key])
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

// FailedClosedWarnings says, one line per block, which blocks of the chain applied
// because their condition could not be evaluated: the one sign, where nothing else
// would show it, that a condition is broken or was pushed past a bound.
func (r *Result) FailedClosedWarnings() []string {
	var out []string
	for _, p := range r.Policies {
		out = append(out, p.FailedClosedWarnings()...)
	}
	return out
}

// FailedClosedWarnings says which blocks of the policy applied because their condition
// could not be evaluated.
func (r PolicyReport) FailedClosedWarnings() []string {
	out := make([]string, len(r.FailedClosed))
	for i, f := range r.FailedClosed {
		out[i] = fmt.Sprintf("%s: %s; its %s applied (a condition that cannot be evaluated fails closed)", r.Source, f.Error, f.As)
	}
	return out
}
