package values

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
			for _, half := range []struct {
				as    Half
				patch map[string]any
			}{{Default, decoded[i][j].defaults}, {Override, decoded[i][j].overrides}} {
				patchLeaves(half.patch, func(path []string, value any) {
					report.Leaves++
					if by, overridden := overriddenBy(merged, path, value, p.source, half.as); overridden {
						report.Overridden = append(report.Overridden, OverriddenLeaf{Path: renderPath(path), As: half.as, By: by})
					}
				})
			}
			out = append(out, report)
		}
	}
	return out
}

// overriddenBy tells whether the leaf at path that source set as half lost, and to whom.
func overriddenBy(merged *tree, path []string, value any, source Source, half Half) (Origin, bool) {
	e, complete := merged.lookup(path)
	if e == nil {
		return Origin{}, false
	}
	if complete && e.origin.Source == source && e.origin.As == half {
		return Origin{}, false
	}
	// An empty object merges into whatever object is there: it cannot lose.
	if object, ok := value.(map[string]any); ok && len(object) == 0 && complete && e.object != nil {
		return Origin{}, false
	}
	return e.origin, true
}

// patchLeaves visits every scalar, list, null and empty object of a patch, sorted by path.
func patchLeaves(patch map[string]any, visit func(path []string, value any)) {
	t := newTree()
	t.apply(patch, Origin{})
	t.leaves(nil, func(path []string, e *entry) {
		switch {
		case e.deleted:
			visit(path, nil)
		case e.object != nil:
			visit(path, map[string]any{})
		default:
			visit(path, e.value)
		}
	})
}
