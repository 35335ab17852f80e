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

// The property tests build random policies over the keys a, b and c at random levels
// and ages, and check the engine against a direct reading of the chain in docs/policies.md for flat keys:
// the override at the lowest level that mentions a key decides it; failing that the
// default at the highest level; within a level the oldest, then the first by name; a
// null there means the key is absent.

var propertyKeys = []string{"a", "b", "c"}

// mention is one policy's word on one key: a value, or nil for null.
type mention struct {
	level   values.Level
	created int
	name    string
	value   any
}

// scenario is a random world for the HTTPRoute team-b/shop on Gateway team-a/web.
type scenario struct {
	in        values.Inputs
	gateway   *gatewayv1.Gateway
	route     *gatewayv1.HTTPRoute
	defaults  map[string][]mention
	overrides map[string][]mention
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

func newScenario(data []byte) *scenario {
	src := byteSource(data)
	s := &scenario{
		in:        values.Inputs{ControllerNamespace: controllerNamespace},
		gateway:   &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a"}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "internet"}},
		route:     &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-b"}},
		defaults:  map[string][]mention{},
		overrides: map[string][]mention{},
	}
	halves := func(name string, level values.Level, created int) *gatewrightv1alpha1.DefaultsAndOverrides {
		def, over := map[string]any{}, map[string]any{}
		for _, key := range propertyKeys {
			for _, half := range []values.Half{values.Default, values.Override} {
				patch := def
				if half == values.Override {
					patch = over
				}
				var value any
				switch src.next(4) {
				case 0, 1:
					continue
				case 2:
					value = name + "-" + string(half)
				}
				patch[key] = value
				m := mention{level: level, created: created, name: name, value: value}
				if half == values.Default {
					s.defaults[key] = append(s.defaults[key], m)
				} else {
					s.overrides[key] = append(s.overrides[key], m)
				}
			}
		}
		return &gatewrightv1alpha1.DefaultsAndOverrides{Default: rawJSON(def), Override: rawJSON(over)}
	}

	bpCreated := src.next(3)
	s.in.Blueprint = &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: objectMeta("", "bp", bpCreated)}
	s.in.Blueprint.Spec.Values = halves("bp", values.LevelBlueprint, bpCreated)

	for i := range 1 + src.next(10) {
		level := values.Level(2 + src.next(7))
		created := src.next(3)
		name := fmt.Sprintf("p%d", i)
		kind, namespace, target := targetOf(level)
		meta := objectMeta(namespace, name, created)
		dao := halves(name, level, created)
		refs := []gatewayv1.LocalPolicyTargetReference{target}
		if kind == gatewrightv1alpha1.KindGatewayClassConfig {
			s.in.GatewayClassConfigs = append(s.in.GatewayClassConfigs, gatewrightv1alpha1.GatewayClassConfig{ObjectMeta: meta,
				Spec: gatewrightv1alpha1.GatewayClassConfigSpec{TargetRefs: refs, DefaultsAndOverrides: *dao}})
		} else {
			s.in.GatewayConfigs = append(s.in.GatewayConfigs, gatewrightv1alpha1.GatewayConfig{ObjectMeta: meta,
				Spec: gatewrightv1alpha1.GatewayConfigSpec{TargetRefs: refs, DefaultsAndOverrides: *dao}})
		}
	}
	return s
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

// expected reads the winner of each key straight off the rules.
func (s *scenario) expected() map[string]any {
	winner := func(ms []mention, better func(a, b values.Level) bool) mention {
		return slices.MinFunc(ms, func(a, b mention) int {
			switch {
			case a.level != b.level:
				if better(a.level, b.level) {
					return -1
				}
				return 1
			case a.created != b.created:
				return a.created - b.created
			default:
				return cmpString(a.name, b.name)
			}
		})
	}
	want := map[string]any{}
	for _, key := range propertyKeys {
		var w mention
		switch {
		case len(s.overrides[key]) > 0:
			w = winner(s.overrides[key], func(a, b values.Level) bool { return a < b })
		case len(s.defaults[key]) > 0:
			w = winner(s.defaults[key], func(a, b values.Level) bool { return a > b })
		default:
			continue
		}
		if w.value != nil {
			want[key] = w.value
		}
	}
	return want
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
	res, err := s.in.ForHTTPRoute(s.gateway, s.route)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func checkProperties(t *testing.T, data []byte) {
	s := newScenario(data)
	res := s.compute(t)

	if diff := cmp.Diff(s.expected(), res.Values); diff != "" {
		t.Fatalf("values differ from the rules (-want +got):\n%s", diff)
	}

	// An override at level k is never beaten by a default, nor by anything above k.
	for _, leaf := range res.Provenance {
		for _, m := range s.overrides[leaf.Path] {
			if leaf.As == values.Default || leaf.Level > m.level {
				t.Fatalf("%s set by %v although %s overrides it at level %d", leaf.Path, leaf.Origin, m.name, m.level)
			}
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

func FuzzChain(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 3, 2, 1, 0, 3, 9, 5, 1, 2, 2, 3, 3, 2, 2, 0, 4, 1, 2, 3, 2, 2})
	f.Add([]byte("every level, every age, every half, null and value"))
	f.Fuzz(checkProperties)
}

func TestChainPropertiesOnRandomWorlds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		data := make([]byte, 8+rng.IntN(120))
		for j := range data {
			data[j] = byte(rng.UintN(256))
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkProperties(t, data) })
	}
}
