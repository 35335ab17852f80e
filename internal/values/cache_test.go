package values_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// versioned gives the only GatewayConfig of in the UID and generation the API server
// would, or none.
func versioned(in values.Inputs, uid types.UID, generation int64) {
	in.GatewayConfigs[0].UID, in.GatewayConfigs[0].Generation = uid, generation
}

func TestAChangedPolicyIsDecodedAgain(t *testing.T) {
	tests := []struct {
		name string
		uid  types.UID
		// generations of the first and the second version
		first, second int64
	}{
		{name: "an object of the API server is known by its UID and generation", uid: "6d1f0c9e", first: 1, second: 2},
		{name: "an object without a UID is known by its content", first: 0, second: 0},
		{name: "an object without a generation is known by its content", uid: "77aa01", first: 0, second: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uid := types.UID(string(tt.uid) + t.Name())
			in, gw, _ := blockInputs(values.LevelGateway, "cached", values.Default, `{"version": 1}`)
			if tt.uid == "" {
				uid = ""
			}
			versioned(in, uid, tt.first)
			equalYAML(t, mustForGateway(t, in, gw).Values, "version: 1")

			in.GatewayConfigs[0].Spec.Default = jsonBlock(`{"version": 2}`)
			versioned(in, uid, tt.second)
			equalYAML(t, mustForGateway(t, in, gw).Values, "version: 2")
		})
	}
}

func mustForGateway(t testing.TB, in values.Inputs, gw *gatewayv1.Gateway) *values.Result {
	t.Helper()
	res, err := in.ForGateway(gw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTheSecondComputationDoesNotDecode computes the values of a Gateway whose tenant
// default holds a string of 400 KB twice: decoding it allocates at least its size, and
// the second computation allocates a small part of that.
func TestTheSecondComputationDoesNotDecode(t *testing.T) {
	const size, budget = 400_000, 64 << 10
	for _, uid := range []types.UID{"", "0f6c2a1b-second"} {
		t.Run(fmt.Sprintf("uid %q", uid), func(t *testing.T) {
			in, gw, _ := blockInputs(values.LevelGateway, "big"+string(uid), values.Default, ofBytes(size))
			versioned(in, uid, 1)
			mustForGateway(t, in, gw)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			mustForGateway(t, in, gw)
			runtime.ReadMemStats(&after)
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > budget {
				t.Errorf("the second computation allocated %d KiB, want under %d KiB", allocated>>10, budget>>10)
			}
		})
	}
}

func TestAResultSharesNothingWithTheCache(t *testing.T) {
	in, gw, _ := blockInputs(values.LevelGateway, "shared", values.Default, `{"list": [{"a": 1}], "empty": {}}`)
	in.Blueprint.Spec.Values = &gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"dropped": [1]}`),
		Override: jsonBlock(`{"values": {"kept": [2]}, "strategy": "Merge"}`)}
	in.GatewayConfigs = append(in.GatewayConfigs, gatewrightv1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "atomic"},
		Spec: gatewrightv1alpha1.GatewayConfigSpec{TargetRefs: in.GatewayConfigs[0].Spec.TargetRefs,
			DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"values": {"dropped": [3]}, "strategy": "Atomic"}`)}}})
	first := mustForGateway(t, in, gw)
	first.Values["list"].([]any)[0].(map[string]any)["a"] = "changed"
	first.Values["kept"].([]any)[0] = "changed"
	first.Values["dropped"].([]any)[0] = "changed"
	for i := range first.Provenance {
		if list, isList := first.Provenance[i].Value.([]any); isList {
			list[0] = "changed"
		}
	}
	second := mustForGateway(t, in, gw)
	equalYAML(t, second.Values, "{list: [{a: 1}], empty: {}, kept: [2], dropped: [1]}")
	for _, leaf := range second.Provenance {
		if list, isList := leaf.Value.([]any); isList && list[0] == "changed" {
			t.Errorf("the provenance of %s kept a change to the first result", leaf.Path)
		}
	}
}

// BenchmarkSecondComputation computes the values of the merge benchmark's route: warm
// computes the same chain again, as the controller does until a policy changes; cold
// gives every policy a new generation first, so that each is decoded again.
func BenchmarkSecondComputation(b *testing.B) {
	for _, form := range []string{"cold", "warm"} {
		b.Run(form, func(b *testing.B) {
			s := newScenario(nil)
			s.in.GatewayClassConfigs, s.in.GatewayConfigs = nil, nil
			s.in.Blueprint.Spec.Values = &gatewrightv1alpha1.DefaultsAndOverrides{Default: rawJSON(nestedValues("bp"))}
			for _, level := range []values.Level{2, 3, 4, 5, 6, 8} {
				for i := range 3 {
					name := fmt.Sprintf("l%d-p%d", level, i)
					meta := objectMeta("", name, 1+i%2)
					meta.UID = types.UID(strings.Repeat("u", 8) + name)
					s.add(level, meta, gatewrightv1alpha1.DefaultsAndOverrides{Default: rawJSON(nestedValues(name)), Override: rawJSON(nestedValues(name))})
				}
			}
			generation := int64(0)
			b.ReportAllocs()
			for b.Loop() {
				if form == "cold" || generation == 0 {
					generation++
					for i := range s.in.GatewayClassConfigs {
						s.in.GatewayClassConfigs[i].Generation = generation
					}
					for i := range s.in.GatewayConfigs {
						s.in.GatewayConfigs[i].Generation = generation
					}
				}
				if res, err := s.in.ForRoute(s.gateway, s.route); err != nil || len(res.Provenance) < 200 {
					b.Fatalf("err %v", err)
				}
			}
		})
	}
}
