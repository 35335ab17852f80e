package values_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// The property tests build random policies over the flat keys a, b and c, at random
// levels and ages, with random strategies, conditions and tenantUnset, and check the
// engine against a plain reading of the rules in docs/policies.md (model), and that
// reading against the older per-key rule where both apply (perKeyWinner).

var propertyKeys = []string{"a", "b", "c"}

// conditions a random block may carry; holds reads each the way CEL would.
var propertyConditions = []string{"has(self.a)", "!has(self.b)", "self.c == 'bp-default'"}

// refBlock is one half of a random policy.
type refBlock struct {
	strategy values.Strategy
	when     string
	values   map[string]any // a value or nil (null) per key it mentions
}

// refPolicy is a random policy; the first of a scenario is the blueprint.
type refPolicy struct {
	level   values.Level
	created int
	name    string
	halves  map[values.Half]*refBlock
}

func (p refPolicy) tenant() bool {
	kind, _, _ := targetOf(p.level)
	return p.level != values.LevelBlueprint && kind == gatewrightv1alpha1.KindGatewayConfig
}

// scenario is a random world for the HTTPRoute team-b/shop on Gateway team-a/web.
type scenario struct {
	forbid   bool
	policies []refPolicy
	in       values.Inputs
	gateway  *gatewayv1.Gateway
	route    *gatewayv1.HTTPRoute
}

// byteSource hands out the fuzzer's bytes one at a time, then zeros.
type byteSource []byte

func (b *byteSource) next(n int) int {
	if len(*b) == 0 {
		return 0
	}
	v := int((*b)[0])
	*b = (*b)[1:]
	return v % n
}

// routeLevels are the levels a policy can take part at for the route, all but the blueprint.
var routeLevels = []values.Level{2, 3, 4, 5, 6, 7, 8, 9, 10}

func newScenario(data []byte) *scenario {
	src := byteSource(data)
	s := &scenario{forbid: src.next(2) == 1}
	randomHalf := func(name string, half values.Half) *refBlock {
		b := &refBlock{strategy: gatewrightv1alpha1.StrategyPatch, values: map[string]any{}}
		for _, key := range propertyKeys {
			switch src.next(4) {
			case 2:
				b.values[key] = name + "-" + string(half)
			case 3:
				b.values[key] = nil
			}
		}
		switch src.next(4) {
		case 2:
			b.strategy = gatewrightv1alpha1.StrategyMerge
		case 3:
			b.strategy = gatewrightv1alpha1.StrategyAtomic
		}
		if i := src.next(6) - 3; i >= 0 {
			b.when = propertyConditions[i]
		}
		if len(b.values) == 0 && b.strategy == gatewrightv1alpha1.StrategyPatch && b.when == "" {
			return nil
		}
		return b
	}
	randomPolicy := func(name string, level values.Level) refPolicy {
		p := refPolicy{level: level, created: src.next(3), name: name, halves: map[values.Half]*refBlock{}}
		for _, half := range []values.Half{values.Default, values.Override} {
			if b := randomHalf(name, half); b != nil {
				p.halves[half] = b
			}
		}
		return p
	}
	s.policies = append(s.policies, randomPolicy("bp", values.LevelBlueprint))
	for i := range 1 + src.next(10) {
		s.policies = append(s.policies, randomPolicy(fmt.Sprintf("p%d", i), routeLevels[src.next(len(routeLevels))]))
	}
	s.build()
	return s
}

// build writes the scenario's policies as the objects the engine reads.
func (s *scenario) build() {
	s.in = values.Inputs{ControllerNamespace: controllerNamespace}
	s.gateway = &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a"}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "internet"}}
	s.route = &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-b"}}
	for _, p := range s.policies {
		dao := gatewrightv1alpha1.DefaultsAndOverrides{Default: p.halves[values.Default].raw(), Override: p.halves[values.Override].raw()}
		if p.level == values.LevelBlueprint {
			s.in.Blueprint = &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: objectMeta("", p.name, p.created)}
			s.in.Blueprint.Spec.Values = &dao
			if s.forbid {
				s.in.Blueprint.Spec.TenantUnset = gatewrightv1alpha1.TenantUnsetForbidden
			}
			continue
		}
		s.add(p.level, objectMeta("", p.name, p.created), dao)
	}
}

// add puts a policy with blocks dao at level.
func (s *scenario) add(level values.Level, meta metav1.ObjectMeta, dao gatewrightv1alpha1.DefaultsAndOverrides) {
	kind, namespace, target := targetOf(level)
	meta.Namespace = namespace
	refs := []gatewayv1.LocalPolicyTargetReference{target}
	if kind == gatewrightv1alpha1.KindGatewayClassConfig {
		s.in.GatewayClassConfigs = append(s.in.GatewayClassConfigs, gatewrightv1alpha1.GatewayClassConfig{ObjectMeta: meta,
			Spec: gatewrightv1alpha1.GatewayClassConfigSpec{TargetRefs: refs, DefaultsAndOverrides: dao}})
	} else {
		s.in.GatewayConfigs = append(s.in.GatewayConfigs, gatewrightv1alpha1.GatewayConfig{ObjectMeta: meta,
			Spec: gatewrightv1alpha1.GatewayConfigSpec{TargetRefs: refs, DefaultsAndOverrides: dao}})
	}
}

// raw writes the block in the shorthand when it can, else in the block form.
func (b *refBlock) raw() *apiextensionsv1.JSON {
	switch {
	case b == nil:
		return nil
	case b.strategy == gatewrightv1alpha1.StrategyPatch && b.when == "":
		return rawJSON(b.values)
	}
	block := map[string]any{"values": b.values, "strategy": string(b.strategy)}
	if b.when != "" {
		block["when"] = b.when
	}
	return rawJSON(block)
}

func targetOf(level values.Level) (kind, namespace string, target gatewayv1.LocalPolicyTargetReference) {
	class := gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "GatewayClass", Name: "internet"}
	namespaceRef := func(ns string) gatewayv1.LocalPolicyTargetReference {
		return gatewayv1.LocalPolicyTargetReference{Group: "", Kind: "Namespace", Name: gatewayv1.ObjectName(ns)}
	}
	switch level {
	case values.LevelGlobalClass:
		return gatewrightv1alpha1.KindGatewayClassConfig, controllerNamespace, class
	case values.LevelProviderNamespace:
		return gatewrightv1alpha1.KindGatewayClassConfig, "team-a", namespaceRef("team-a")
	case values.LevelProviderClass:
		return gatewrightv1alpha1.KindGatewayClassConfig, "team-a", class
	case values.LevelRouteProviderNamespace:
		return gatewrightv1alpha1.KindGatewayClassConfig, "team-b", namespaceRef("team-b")
	case values.LevelRouteProviderClass:
		return gatewrightv1alpha1.KindGatewayClassConfig, "team-b", class
	case values.LevelTenantNamespace:
		return gatewrightv1alpha1.KindGatewayConfig, "team-a", namespaceRef("team-a")
	case values.LevelGateway:
		return gatewrightv1alpha1.KindGatewayConfig, "team-a", gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "Gateway", Name: "web"}
	case values.LevelRouteNamespace:
		return gatewrightv1alpha1.KindGatewayConfig, "team-b", namespaceRef("team-b")
	default:
		return gatewrightv1alpha1.KindGatewayConfig, "team-b", gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Name: "shop"}
	}
}

// objectMeta gives age 0 no creationTimestamp (as in files), 1 and 2 a day each.
func objectMeta(namespace, name string, created int) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{Namespace: namespace, Name: name}
	if created > 0 {
		meta.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, created, 0, 0, 0, 0, time.UTC))
	}
	return meta
}

func rawJSON(object map[string]any) *apiextensionsv1.JSON {
	data, err := yaml.Marshal(object)
	if err != nil {
		panic(err)
	}
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		panic(err)
	}
	return &apiextensionsv1.JSON{Raw: raw}
}

// modelRank is the chain of docs/policies.md, least specific first, written out again.
var modelRank = map[values.Level]int{1: 1, 2: 2, 3: 3, 4: 4, 9: 5, 10: 6, 5: 7, 6: 8, 7: 9, 8: 10}

// ordered returns the policies from the lowest to the highest: the more specific level,
// then the newer, then the later name is lower.
func (s *scenario) ordered() []refPolicy {
	out := slices.Clone(s.policies)
	slices.SortStableFunc(out, func(a, b refPolicy) int {
		switch {
		case a.level != b.level:
			return modelRank[b.level] - modelRank[a.level]
		case a.created != b.created:
			return b.created - a.created
		default:
			return cmpString(b.name, a.name)
		}
	})
	return out
}

// cell is one key of the model's values: a value, or a null that unset it.
type cell struct {
	value  any
	unset  bool
	pos    int
	tenant bool
}

func visible(acc map[string]cell) map[string]any {
	out := map[string]any{}
	for key, c := range acc {
		if !c.unset {
			out[key] = c.value
		}
	}
	return out
}

// holds reads a condition of propertyConditions; one that fails to evaluate (on a key
// that is not there) fails closed: it holds.
func holds(when string, self map[string]any) bool {
	switch when {
	case "has(self.a)":
		_, ok := self["a"]
		return ok
	case "!has(self.b)":
		_, ok := self["b"]
		return !ok
	default:
		c, ok := self["c"]
		return !ok || c == "bp-default"
	}
}

// model folds the blocks as the rules say, for flat keys, where Merge is Patch.
func (s *scenario) model() map[string]any {
	acc := map[string]cell{}
	chain := s.ordered()
	for _, half := range []values.Half{values.Default, values.Override} {
		for pos, p := range chain {
			b := p.halves[half]
			if b == nil || (b.when != "" && !holds(b.when, visible(acc))) {
				continue
			}
			mk := func(value any) cell { return cell{value: value, unset: value == nil, pos: pos, tenant: p.tenant()} }
			// A tenant's null may not remove what a higher block set when forbidden.
			refused := func(victim cell) bool { return s.forbid && p.tenant() && !victim.unset && victim.pos > pos }
			// A tenant's null below may not keep out this block's value when forbidden.
			ignored := func(below cell) bool { return s.forbid && below.unset && below.tenant }
			switch {
			case half == values.Default && b.strategy == gatewrightv1alpha1.StrategyAtomic:
				// Goes in when the values below only unset, less what they unset.
				empty := true
				for _, below := range acc {
					empty = empty && below.unset
				}
				for key, value := range b.values {
					if below, ok := acc[key]; empty && (!ok || (value != nil && ignored(below))) {
						acc[key] = mk(value)
					}
				}
			case half == values.Default:
				for key, value := range b.values {
					if below, ok := acc[key]; !ok || (value != nil && ignored(below)) {
						acc[key] = mk(value)
					}
				}
			case b.strategy == gatewrightv1alpha1.StrategyAtomic:
				next := map[string]cell{}
				for key, value := range b.values {
					next[key] = mk(value)
				}
				for key, old := range acc {
					if now, ok := next[key]; refused(old) && (!ok || now.unset) {
						next[key] = old
					}
				}
				acc = next
			default:
				for key, value := range b.values {
					if old, ok := acc[key]; !ok || value != nil || !refused(old) {
						acc[key] = mk(value)
					}
				}
			}
		}
	}
	return visible(acc)
}

// plain tells whether the scenario uses none of strategies, conditions and tenantUnset,
// so that the per-key rule of the chain's first version applies.
func (s *scenario) plain() bool {
	for _, p := range s.policies {
		for _, b := range p.halves {
			if b.strategy == gatewrightv1alpha1.StrategyAtomic || b.when != "" {
				return false
			}
		}
	}
	return !s.forbid
}

// perKeyWinner reads the winner of each key straight off the rules for Patch blocks:
// the override at the least specific level that mentions a key decides it, failing that
// the default at the most specific level; within a level the higher (older, then first
// by name) override and the lower (newer, then later by name) default; a null there
// means the key is absent.
func (s *scenario) perKeyWinner() map[string]any {
	want := map[string]any{}
	for _, key := range propertyKeys {
		var winner *refPolicy
		var value any
		for _, half := range []values.Half{values.Override, values.Default} {
			for i := range s.policies {
				p := &s.policies[i]
				b := p.halves[half]
				if b == nil {
					continue
				}
				v, mentioned := b.values[key]
				if !mentioned {
					continue
				}
				if winner == nil || beats(half, p, winner) {
					winner, value = p, v
				}
			}
			if winner != nil {
				break
			}
		}
		if winner != nil && value != nil {
			want[key] = value
		}
	}
	return want
}

// beats tells whether p's half beats q's, both mentioning a key.
func beats(half values.Half, p, q *refPolicy) bool {
	higher := func() bool {
		switch {
		case p.level != q.level:
			return modelRank[p.level] < modelRank[q.level]
		case p.created != q.created:
			return p.created < q.created
		default:
			return p.name < q.name
		}
	}()
	if half == values.Override {
		return higher
	}
	return !higher
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *scenario) compute(t *testing.T) *values.Result {
	t.Helper()
	res, err := s.in.ForRoute(s.gateway, s.route)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func checkProperties(t *testing.T, data []byte) {
	s := newScenario(data)
	res := s.compute(t)

	want := s.model()
	if diff := cmp.Diff(want, res.Values); diff != "" {
		t.Fatalf("values differ from the rules (-want +got):\n%s", diff)
	}
	if s.plain() {
		if diff := cmp.Diff(s.perKeyWinner(), want); diff != "" {
			t.Fatalf("the model differs from the per-key rule (-rule +model):\n%s", diff)
		}
	}

	// An override that applied is never beaten by a default, nor by a more specific
	// block; only a forbidden unset can keep a default in its place.
	skipped := notApplied(res.Policies)
	for _, leaf := range res.Provenance {
		if leaf.DroppedBy != nil || s.forbid {
			continue
		}
		for _, p := range s.policies {
			b := p.halves[values.Override]
			if b == nil || skipped[p.name+"/"+string(values.Override)] {
				continue
			}
			if _, mentioned := b.values[leaf.Path]; !mentioned {
				continue
			}
			if leaf.As == values.Default || p.level.Above(leaf.Level) {
				t.Fatalf("%s set by %v although %s overrides it at level %d", leaf.Path, leaf.Origin, p.name, p.level)
			}
		}
	}

	// Reports never count more losses than leaves, and name what beat each.
	for _, r := range res.Policies {
		if len(r.Overridden) > r.Leaves {
			t.Fatalf("%s: %d leaves, %d overridden", r.Source, r.Leaves, len(r.Overridden))
		}
		for _, o := range r.Overridden {
			if o.By.Source.Name == "" || o.Strategy == "" {
				t.Fatalf("%s: %+v names no winner or no strategy", r.Source, o)
			}
		}
	}

	// A condition only decides whether its block takes part: without the blocks that
	// did not, and without the conditions of those that did, the values are the same.
	if without := s.withoutConditions(res.Policies); without != nil {
		again := without.compute(t)
		if diff := cmp.Diff(res.Values, again.Values); diff != "" {
			t.Fatalf("values differ without the conditions (-with +without):\n%s", diff)
		}
		if diff := cmp.Diff(res.Provenance, again.Provenance); diff != "" {
			t.Fatalf("provenance differs without the conditions (-with +without):\n%s", diff)
		}
	}

	// The result does not depend on the order of the policy lists.
	shuffled := newScenario(data)
	rng := rand.New(rand.NewPCG(uint64(len(data)), 7))
	rng.Shuffle(len(shuffled.in.GatewayClassConfigs), func(i, j int) {
		shuffled.in.GatewayClassConfigs[i], shuffled.in.GatewayClassConfigs[j] = shuffled.in.GatewayClassConfigs[j], shuffled.in.GatewayClassConfigs[i]
	})
	rng.Shuffle(len(shuffled.in.GatewayConfigs), func(i, j int) {
		shuffled.in.GatewayConfigs[i], shuffled.in.GatewayConfigs[j] = shuffled.in.GatewayConfigs[j], shuffled.in.GatewayConfigs[i]
	})
	if diff := cmp.Diff(res, shuffled.compute(t)); diff != "" {
		t.Fatalf("shuffling the policies changed the result (-before +after):\n%s", diff)
	}

	// Computing again gives the same result.
	if diff := cmp.Diff(res, s.compute(t)); diff != "" {
		t.Fatalf("a second computation differs (-first +second):\n%s", diff)
	}
}

// withoutConditions returns the scenario without the halves reports say did not apply
// and without the conditions of the others; nil when it has no conditions.
func (s *scenario) withoutConditions(reports []values.PolicyReport) *scenario {
	skipped := notApplied(reports)
	out := &scenario{forbid: s.forbid}
	found := false
	for _, p := range s.policies {
		q := refPolicy{level: p.level, created: p.created, name: p.name, halves: map[values.Half]*refBlock{}}
		for half, b := range p.halves {
			found = found || b.when != ""
			if !skipped[p.name+"/"+string(half)] {
				q.halves[half] = &refBlock{strategy: b.strategy, values: b.values}
			}
		}
		out.policies = append(out.policies, q)
	}
	if !found {
		return nil
	}
	out.build()
	return out
}

// notApplied names, as name/half, the halves the reports say did not apply.
func notApplied(reports []values.PolicyReport) map[string]bool {
	skipped := map[string]bool{}
	for _, r := range reports {
		for _, n := range r.NotApplied {
			skipped[r.Source.Name+"/"+string(n.As)] = true
		}
	}
	return skipped
}

func FuzzChain(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 3, 2, 1, 0, 3, 9, 5, 1, 2, 2, 3, 3, 2, 2, 0, 4, 1, 2, 3, 2, 2})
	f.Add([]byte("every level, every age, every half, null and value"))
	f.Add([]byte("atomic and merge, when and unset: forbidden or allowed"))
	f.Fuzz(checkProperties)
}

func TestChainPropertiesOnRandomWorlds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		data := make([]byte, 8+rng.IntN(160))
		for j := range data {
			data[j] = byte(rng.UintN(256))
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkProperties(t, data) })
	}
}
