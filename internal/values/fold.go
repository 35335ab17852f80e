package values

import (
	"fmt"
	"sort"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// placed is a policy at one level of the chain, with its blocks read.
type placed struct {
	policy
	level   Level
	decoded decodedPolicy
}

// sortChain orders the chain from its lowest block to its highest (GEP-713): the more
// specific level is lower; within a level the newer policy is lower, and among equally
// old ones the later by namespace/name. Results never depend on list or cache order.
func sortChain(chain []placed) {
	sort.SliceStable(chain, func(i, j int) bool {
		a, b := chain[i], chain[j]
		switch {
		case a.level != b.level:
			return b.level.Above(a.level)
		case !a.created.Equal(b.created):
			return a.created.After(b.created)
		default:
			return a.source.Namespace+"/"+a.source.Name > b.source.Namespace+"/"+b.source.Name
		}
	})
}

// halfOf names one half of one policy.
type halfOf struct {
	source Source
	half   Half
}

// loss is what a leaf of a block gave way to, and the strategy that decided.
type loss struct {
	by       Origin
	strategy Strategy
}

// droppedValue is a value that an Atomic or Merge block left out of the values whole.
type droppedValue struct {
	path   []string
	value  any
	origin Origin // of the value
	by     Origin // of what took its place: the override that replaced it, or the values below a default that gave way
}

// folder combines the blocks of a chain, from the lowest to the highest: first every
// default, each as the higher of two blocks over the values below it, then every
// override the same way (docs/policies.md, "Merging"). It notes on the way what the
// reports and the provenance need and the final values no longer show.
type folder struct {
	acc               *tree
	forbidTenantUnset bool

	applied map[halfOf]bool
	// losses holds the leaves of defaults that gave way whole as soon as they were
	// combined (Atomic, or a key under Merge), by half and path.
	losses map[halfOf]map[string]loss
	// drops holds, by path, the last value an Atomic or Merge override removed there.
	drops map[string]droppedValue
	// droppedUnsets holds, by path, the null an Atomic or Merge override removed there:
	// the value it unset stays lost to it, though the null itself is gone.
	droppedUnsets map[string]Origin
	// defaultDrops holds the values of defaults that gave way whole.
	defaultDrops []droppedValue
	refused      map[Source][]RefusedUnset
	notApplied   map[Source][]NotApplied
	failedClosed map[Source][]FailedCondition
	budget       conditionBudget
}

// newFolder starts a fold. The notes other than applied are rare, and made on first use.
func newFolder(forbidTenantUnset bool) *folder {
	return &folder{acc: newTree(), forbidTenantUnset: forbidTenantUnset, applied: map[halfOf]bool{}}
}

func (f *folder) fold(chain []placed) {
	for _, half := range []Half{Default, Override} {
		for pos, p := range chain {
			if b := p.decoded.half(half); b != nil {
				f.combine(p, half, b, pos)
			}
		}
	}
}

// combine puts block b of p, at place pos in the chain, over the values folded so far.
func (f *folder) combine(p placed, half Half, b *block, pos int) {
	if b.when != nil && !f.holds(p, half, b) {
		return
	}
	f.applied[halfOf{p.source, half}] = true
	o := Origin{Source: p.source, As: half, Level: p.level, Strategy: b.strategy}
	switch {
	case half == Default && b.strategy == gatewrightv1alpha1.StrategyMerge:
		f.mergeDefault(b.values, o, pos)
	case half == Default && b.strategy == gatewrightv1alpha1.StrategyAtomic:
		f.atomicDefault(b.values, o, pos)
	case half == Default:
		f.fill(f.acc, b.values, o, pos, nil)
	case b.strategy == gatewrightv1alpha1.StrategyMerge:
		for key, value := range b.values {
			old := f.acc.fields[key]
			f.acc.fields[key] = build(value, o, pos)
			if old != nil {
				f.replaced(f.acc, &tree{fields: map[string]*entry{key: old}}, o, pos)
			}
		}
	case b.strategy == gatewrightv1alpha1.StrategyAtomic:
		old := f.acc
		f.acc = buildTree(b.values, o, pos)
		f.replaced(f.acc, old, o, pos)
	default:
		f.patch(f.acc, b.values, o, pos, nil)
	}
}

// holds evaluates the block's condition against the values below it. A condition that
// cannot be evaluated (an error, a type mismatch, over its bounds or the computation's)
// fails closed: the block applies, and its policy's report says why. The values the
// condition reads may come from a tenant, who must not be able to switch off the
// provider's block by making its condition fail.
func (f *folder) holds(p placed, half Half, b *block) bool {
	holds, err := f.budget.evaluate(b.when, f.acc.values(), p.source.Namespace)
	switch {
	case err != nil:
		if f.failedClosed == nil {
			f.failedClosed = map[Source][]FailedCondition{}
		}
		f.failedClosed[p.source] = append(f.failedClosed[p.source], FailedCondition{As: half, Level: p.level,
			Error: fmt.Sprintf("%s.%s: %v", blockField(p.source.Kind, half), keyWhen, err)})
		return true
	case !holds:
		if f.notApplied == nil {
			f.notApplied = map[Source][]NotApplied{}
		}
		f.notApplied[p.source] = append(f.notApplied[p.source], NotApplied{As: half, Level: p.level})
	}
	return holds
}

// fill combines a Patch default, leaf by leaf: its values go only where the values
// below have nothing, and a null below unsets its key.
func (f *folder) fill(t *tree, patch map[string]any, o Origin, pos int, path []string) {
	for key, value := range patch {
		e := t.fields[key]
		switch {
		case e == nil:
			t.fields[key] = build(value, o, pos)
		case e.deleted:
			if value != nil && f.refusesUnset(e, pos) {
				f.refuse(e.origin, append(path, key), value, o)
				t.fields[key] = build(value, o, pos)
			}
		case e.object != nil:
			if object, isObject := value.(map[string]any); isObject {
				f.fill(e.object, object, o, pos, append(path, key))
			}
		}
	}
}

// mergeDefault combines a Merge default, top-level key by top-level key: each key's
// subtree goes in whole where the values below do not have the key, and gives way
// whole where they do.
func (f *folder) mergeDefault(values map[string]any, o Origin, pos int) {
	for key, value := range values {
		e := f.acc.fields[key]
		switch {
		case e == nil:
			f.acc.fields[key] = build(value, o, pos)
		case e.deleted && value != nil && f.refusesUnset(e, pos):
			f.refuse(e.origin, []string{key}, value, o)
			f.acc.fields[key] = build(value, o, pos)
		default:
			f.giveWay(map[string]any{key: value}, o)
		}
	}
}

// atomicDefault combines an Atomic default: it gives way whole when the values below
// set anything, and goes in otherwise, less the keys a null below unset. So says the
// Kuadrant RFC's merge of an atomic default B over a policy p: "remove from B all policy
// rules listed in p.unset", then, when p is empty, "p.rules ← B". A tenant's null the
// blueprint forbids removes nothing.
func (f *folder) atomicDefault(values map[string]any, o Origin, pos int) {
	if f.acc.setsValues() {
		f.giveWay(values, o)
		return
	}
	f.fill(f.acc, values, o, pos, nil)
}

// giveWay notes that the values of the default o gave way whole to the values below.
func (f *folder) giveWay(values map[string]any, o Origin) {
	at := halfOf{o.Source, o.As}
	if f.losses == nil {
		f.losses = map[halfOf]map[string]loss{}
	}
	if f.losses[at] == nil {
		f.losses[at] = map[string]loss{}
	}
	eachLeaf(values, nil, func(path []string, value any) {
		by := f.below(path)
		f.losses[at][renderPath(path)] = loss{by: by, strategy: o.Strategy}
		if value != nil {
			f.defaultDrops = append(f.defaultDrops, droppedValue{path: append([]string(nil), path...), value: detached(value), origin: o, by: by})
		}
	})
}

// below names what a default at path gave way to: the deepest entry along path in the
// values below, or else the first of them.
func (f *folder) below(path []string) Origin {
	var found *entry
	for node, i := f.acc, 0; node != nil && i < len(path); i++ {
		e := node.fields[path[i]]
		if e == nil {
			break
		}
		found, node = e, e.object
	}
	if found == nil {
		f.acc.leaves(nil, func(_ []string, e *entry) {
			if found == nil {
				found = e
			}
		})
	}
	return found.origin
}

// patch combines a Patch override as a JSON Merge Patch (RFC 7386): objects merge key
// by key, everything else replaces, and null unsets.
func (f *folder) patch(t *tree, patch map[string]any, o Origin, pos int, path []string) {
	for key, value := range patch {
		e := t.fields[key]
		switch value := value.(type) {
		case nil:
			t.fields[key] = build(nil, o, pos)
			if e != nil && f.protected(o) {
				f.restore(t, &tree{fields: map[string]*entry{key: e}}, o, pos, path)
			}
		case map[string]any:
			if e == nil || e.object == nil {
				e = &entry{object: newTree(), origin: o, pos: pos}
				t.fields[key] = e
			}
			f.patch(e.object, value, o, pos, append(path, key))
		default:
			t.fields[key] = &entry{value: detached(value), origin: o, pos: pos}
		}
	}
}

// replaced handles the values of old that an Atomic or Merge override o left out of t:
// a tenant's may not remove inherited ones, and the rest are noted as dropped.
func (f *folder) replaced(t, old *tree, o Origin, pos int) {
	if f.protected(o) {
		f.restore(t, old, o, pos, nil)
	}
	old.leaves(nil, func(path []string, e *entry) {
		if e.deleted && t.at(path) == nil {
			if f.droppedUnsets == nil {
				f.droppedUnsets = map[string]Origin{}
			}
			f.droppedUnsets[renderPath(path)] = e.origin
		}
		if !e.deleted && t.at(path) == nil {
			if f.drops == nil {
				f.drops = map[string]droppedValue{}
			}
			f.drops[renderPath(path)] = droppedValue{path: append([]string(nil), path...), value: e.plain(), origin: e.origin, by: o}
		}
	})
}

// protected tells whether values inherited by the block o are kept from its unsets.
func (f *folder) protected(o Origin) bool {
	return f.forbidTenantUnset && o.Source.tenant()
}

// refusesUnset tells whether the tombstone e may not unset the value of a block at pos.
func (f *folder) refusesUnset(e *entry, pos int) bool {
	return f.forbidTenantUnset && e.origin.Source.tenant() && e.pos < pos
}

// restore puts back into t the values of old, set by blocks higher than the tenant's
// block o at pos, that o removed: unset, or left out of an Atomic or Merge override. It
// tells whether it put back any. Values o replaced with values of its own stay replaced.
func (f *folder) restore(t, old *tree, o Origin, pos int, path []string) bool {
	restored := false
	for key, e := range old.fields {
		if e.deleted {
			continue
		}
		at, now := append(path, key), t.fields[key]
		if e.object != nil && len(e.object.fields) > 0 {
			switch {
			case now == nil || now.deleted:
				kept := newTree()
				if f.restore(kept, e.object, o, pos, at) {
					t.fields[key] = &entry{object: kept, origin: e.origin, pos: e.pos}
					restored = true
				}
			case now.object != nil:
				restored = f.restore(now.object, e.object, o, pos, at) || restored
			}
			continue
		}
		if e.pos > pos && (now == nil || now.deleted) {
			t.fields[key] = e
			f.refuse(o, at, e.plain(), e.origin)
			restored = true
		}
	}
	return restored
}

// refuse notes on the tenant's report that its block could not unset what setBy set.
func (f *folder) refuse(tenant Origin, path []string, value any, setBy Origin) {
	if f.refused == nil {
		f.refused = map[Source][]RefusedUnset{}
	}
	f.refused[tenant.Source] = append(f.refused[tenant.Source], RefusedUnset{Path: renderPath(path), As: tenant.As, Value: detached(value), SetBy: setBy})
}

// dropped lists the values an Atomic or Merge block left out and nothing else put back,
// in path order.
func (f *folder) dropped() []droppedValue {
	var out []droppedValue
	for _, d := range f.defaultDrops {
		if f.acc.at(d.path) == nil {
			out = append(out, d)
		}
	}
	for _, d := range f.drops {
		if f.acc.at(d.path) == nil {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return lessPath(out[i].path, out[j].path) })
	return out
}

// lessPath orders paths as tree.leaves visits them.
func lessPath(a, b []string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}
