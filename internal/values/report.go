package values

import "sort"

// State sums up how much of a policy took effect, in the terms of Gateway API policy
// status: Programmed (all of it), PartiallyProgrammed, or Overridden (none of it).
type State string

const (
	Programmed          State = "Programmed"
	PartiallyProgrammed State = "PartiallyProgrammed"
	Overridden          State = "Overridden"
)

// PolicyReport says which of a policy's values were overridden, and by what.
type PolicyReport struct {
	Source Source `json:"source"`
	// Levels the policy was applied at (a config may target a namespace and a Gateway).
	Levels []Level `json:"levels"`
	// Leaves counts the leaves the policy sets, in its default and override together.
	Leaves int `json:"leaves"`
	// Overridden lists the leaves whose effective value came from elsewhere.
	Overridden []OverriddenLeaf `json:"overridden,omitempty"`
}

// OverriddenLeaf is a value a policy set that did not take effect.
type OverriddenLeaf struct {
	Path string `json:"path"`
	As   Half   `json:"as"`
	By   Origin `json:"by"`
}

// State of the policy: Programmed when nothing it sets was overridden.
func (r PolicyReport) State() State {
	switch {
	case len(r.Overridden) == 0:
		return Programmed
	case len(r.Overridden) < r.Leaves:
		return PartiallyProgrammed
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

// reports compares what each policy set with what the merged tree kept.
func reports(merged *tree, layers []layer, decoded [][]decodedPolicy) []PolicyReport {
	var out []PolicyReport
	index := map[Source]int{}
	for i, l := range layers {
		for j, p := range l.policies {
			if k, seen := index[p.source]; seen {
				out[k].Levels = append(out[k].Levels, l.level)
				continue
			}
			index[p.source] = len(out)
			report := PolicyReport{Source: p.source, Levels: []Level{l.level}}
			report.compare(decoded[i][j].defaults, Default, merged, nil)
			report.compare(decoded[i][j].overrides, Override, merged, nil)
			out = append(out, report)
		}
	}
	return out
}

// compare walks the half of the report's policy alongside the merged tree, counting
// the leaves of the patch and noting those whose value came from elsewhere. Like
// tree.leaves, it appends to one shared path instead of copying it at every level.
func (r *PolicyReport) compare(patch map[string]any, half Half, node *tree, path []string) {
	for _, key := range sortedKeys(patch) {
		value, at := patch[key], append(path, key)
		var e *entry
		if node != nil {
			e = node.fields[key]
		}
		object, isObject := value.(map[string]any)
		switch {
		case isObject && len(object) > 0 && e != nil && e.object != nil:
			r.compare(object, half, e.object, at)
		case isObject && len(object) > 0:
			// Something else replaced or unset the whole object: every leaf in it lost.
			eachLeaf(object, at, func(leaf []string) { r.count(leaf, half, e) })
		case e == nil, e.origin.Source == r.Source && e.origin.As == half:
			r.Leaves++
		case isObject && e.object != nil:
			r.Leaves++ // an empty object merges into any object: it cannot lose
		default:
			r.count(at, half, e)
		}
	}
}

// count adds a leaf that lost to by.
func (r *PolicyReport) count(path []string, half Half, by *entry) {
	r.Leaves++
	if by != nil {
		r.Overridden = append(r.Overridden, OverriddenLeaf{Path: renderPath(path), As: half, By: by.origin})
	}
}

// eachLeaf visits the leaves of patch; visit must not keep the path, which is shared.
func eachLeaf(patch map[string]any, path []string, visit func(path []string)) {
	for _, key := range sortedKeys(patch) {
		at := append(path, key)
		if object, ok := patch[key].(map[string]any); ok && len(object) > 0 {
			eachLeaf(object, at, visit)
			continue
		}
		visit(at)
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
