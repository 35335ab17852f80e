package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/offline"
)

// The floor is compared with Gatewright on the same work only if it applies what the
// bench blueprint renders, with the values of the bench policies, before and after each
// change: the same changed objects, and only for the Gateways the change reaches.
func TestFloorAppliesWhatTheBenchBlueprintRenders(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  change
		gateway int
	}{
		{"the settled fleet", noChange, 13},
		{"a blueprint change reaches every Gateway", changeBlueprint, 13},
		{"a class-wide config change reaches every Gateway", changeClassConfig, 13},
		{"a namespace's config change reaches its Gateways", changeGatewayConfig, 10},
		{"a namespace's config change leaves other namespaces' Gateways alone", changeGatewayConfig, 13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := gateway(tc.gateway, 10)
			streams := []string{blueprintYAML(rolloutWaves, tc.change == changeBlueprint), classConfigYAML(tc.change == changeClassConfig),
				tenant(gw.Namespace, tc.change == changeGatewayConfig && gw.Namespace == changedNamespace)}
			var made floorChange
			if tc.change != noChange {
				made = tc.change.floorChange()
			}
			rendered := renderOffline(t, gw, streams)
			if diff := cmp.Diff(rendered, byName(t, floorChildren(gw, made))); diff != "" {
				t.Errorf("the floor's children differ from the blueprint's (-blueprint +floor):\n%s", diff)
			}
			unchanged := renderOffline(t, gw, []string{blueprintYAML(rolloutWaves, false), classConfigYAML(false), tenant(gw.Namespace, false)})
			want := 0
			if tc.change != noChange && made.reaches(gw.Namespace) {
				want = 1
			}
			if changed := len(diffKeys(unchanged, rendered)); changed != want {
				t.Errorf("the change alters %d objects of Gateway %s/%s; want 1 if it reaches it, else 0", changed, gw.Namespace, gw.Name)
			}
		})
	}
}

// renderOffline renders gw with the workload's streams, by kind and name.
func renderOffline(t *testing.T, gw *gatewayv1.Gateway, streams []string) map[string]string {
	t.Helper()
	set := &offline.Set{}
	gwYAML, err := yaml.Marshal(gw)
	if err != nil {
		t.Fatal(err)
	}
	for _, stream := range append(streams, "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\n"+string(gwYAML)) {
		if err := set.Add([]byte(stream)); err != nil {
			t.Fatal(err)
		}
	}
	rendered, err := set.Render(controllerNamespace, gw.Namespace+"/"+gw.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(rendered) != 1 {
		t.Fatalf("rendered %d Gateways, want 1", len(rendered))
	}
	return byName(t, rendered[0].Objects)
}

// diffKeys are the keys whose values differ between a and b.
func diffKeys(a, b map[string]string) []string {
	var out []string
	for k := range b {
		if a[k] != b[k] {
			out = append(out, k)
		}
	}
	return out
}

// byName keys objects by kind and name, each as the YAML it is applied as.
func byName(t *testing.T, objs []*unstructured.Unstructured) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, obj := range objs {
		data, err := yaml.Marshal(obj.Object)
		if err != nil {
			t.Fatal(err)
		}
		out[obj.GetKind()+" "+obj.GetName()] = string(data)
	}
	return out
}

// The floor writes what the Gateway API asks of a Gateway's status as Gatewright judges
// a bench Gateway's listeners: the same route kinds and the listener conditions of a
// listener without conflicts, so that both write a status of the same size.
func TestFloorStatusIsTheListenersGatewrightReports(t *testing.T) {
	gw := gateway(1, 10)
	gw.Generation = 1
	floorStatus(gw, "10.0.0.1")
	rules := listeners.Evaluate(listeners.Serves{}, gw.Spec.Listeners, nil)
	if len(gw.Status.Listeners) != len(rules) {
		t.Fatalf("the floor reports %d listeners, want %d", len(gw.Status.Listeners), len(rules))
	}
	for i, l := range gw.Status.Listeners {
		if diff := cmp.Diff(rules[i].SupportedKinds, l.SupportedKinds); l.Name != rules[i].Name || diff != "" {
			t.Errorf("listener %d: %s, kinds (-Gatewright +floor):\n%s", i, l.Name, diff)
		}
		if rules[i].Conflicted != gatewayv1.ListenerReasonNoConflicts {
			t.Fatalf("listener %s conflicts; the bench Gateway's should not", l.Name)
		}
		var types []string
		for _, c := range l.Conditions {
			types = append(types, c.Type)
		}
		want := []string{string(gatewayv1.ListenerConditionAccepted), string(gatewayv1.ListenerConditionResolvedRefs), string(gatewayv1.ListenerConditionProgrammed)}
		if diff := cmp.Diff(want, types); diff != "" {
			t.Errorf("listener %s conditions (-want +floor):\n%s", l.Name, diff)
		}
	}
	floorStatus(gw, "10.0.0.1")
	if n := len(gw.Status.Listeners[0].Conditions); n != 3 {
		t.Errorf("a second status has %d conditions on a listener, want 3", n)
	}
}

// The floor writes each policy's status once per generation, as GEP-713 asks of any
// implementation: a second look at the same generation writes nothing.
func TestFloorWritesEachPolicyStatusOncePerGeneration(t *testing.T) {
	status := &gatewrightv1alpha1.PolicyStatus{}
	targets := []gatewayv1.LocalPolicyTargetReference{{Kind: "Namespace", Name: "tenant-0"}}
	for _, step := range []struct {
		generation int64
		want       bool
	}{{1, true}, {1, false}, {2, true}} {
		if got := floorPolicyStatus(status, targets, "tenant-0", step.generation); got != step.want {
			t.Errorf("generation %d: wrote %t, want %t", step.generation, got, step.want)
		}
	}
	if len(status.Ancestors) != 1 || len(status.Ancestors[0].Conditions) != 2 {
		t.Fatalf("ancestors = %+v, want one with Accepted and Programmed", status.Ancestors)
	}
}
