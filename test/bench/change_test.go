package main

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestChangeFlagsAcceptTheScenariosAndNothingElse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  string
		rollout string
		ok      bool
	}{
		{"no change is today's run", "", "allatonce", true},
		{"a blueprint change in waves", "blueprint", "waves", true},
		{"a class-wide config change", "classconfig", "allatonce", true},
		{"a namespace's config change", "gatewayconfig", "allatonce", true},
		{"an unknown change is refused", "gatewayclass", "allatonce", false},
		{"an unknown strategy is refused", "blueprint", "canary", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err1 := parseChange(tc.change)
			_, err2 := parseRollout(tc.rollout)
			if ok := err1 == nil && err2 == nil; ok != tc.ok {
				t.Errorf("-change %q -rollout %q: errors %v, %v; want accepted: %v", tc.change, tc.rollout, err1, err2, tc.ok)
			}
		})
	}
}

func TestChangedGatewaysAreThoseOfTheNamespacesTheChangeReaches(t *testing.T) {
	s := settings{gateways: 1000, namespaces: 10}
	for _, tc := range []struct {
		change change
		want   int
	}{
		{changeBlueprint, 1000},
		{changeClassConfig, 1000},
		{changeGatewayConfig, 100},
	} {
		if got := tc.change.changedGateways(s); got != tc.want {
			t.Errorf("%s reaches %d of 1000 Gateways in 10 namespaces; want %d", tc.change, got, tc.want)
		}
	}
}

func TestUnchangedWritesCountOnlyTheTenantNamespacesTheChangeDoesNotReach(t *testing.T) {
	window := tally{WritesByNamespace: map[string]int{
		"tenant-0": 200, "tenant-1": 3, "tenant-2": 1, controllerNamespace: 4, "": 5,
	}}
	for _, tc := range []struct {
		name   string
		change change
		want   int
	}{
		{"a namespace's change counts the other tenants' writes", changeGatewayConfig, 4},
		{"a fleet-wide change leaves no Gateway unchanged", changeBlueprint, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := unchangedWrites(window, tc.change.floorChange(), 3); got != tc.want {
				t.Errorf("got %d writes for unchanged Gateways, want %d", got, tc.want)
			}
		})
	}
}

func TestBootstrapWatchTellsWhenEveryReachedConfigMapHasItsNewContent(t *testing.T) {
	w := &bootstrapWatch{change: changeGatewayConfig.floorChange(), want: 2, all: make(chan struct{}), changed: map[types.NamespacedName]bool{}}
	a := types.NamespacedName{Namespace: "tenant-0", Name: "gw-0-proxy-bootstrap"}
	b := types.NamespacedName{Namespace: "tenant-0", Name: "gw-10-proxy-bootstrap"}
	other := types.NamespacedName{Namespace: "tenant-1", Name: "gw-1-proxy-bootstrap"}
	old := map[string]string{"image": "envoyproxy/envoy:v1.36.2", "replicas": "2"}
	changed := map[string]string{"image": changedImage, "replicas": "2"}
	done := func() bool {
		select {
		case <-w.all:
			return true
		default:
			return false
		}
	}
	for _, step := range []struct {
		name string
		key  types.NamespacedName
		data map[string]string
		done bool
	}{
		{"one of two reached ConfigMaps before the change", a, old, false},
		{"a ConfigMap the change does not reach", other, changed, false},
		{"one of two changed", a, changed, false},
		{"the other seen still unchanged", b, old, false},
		{"the last one changed", b, changed, true},
	} {
		w.record(step.key, step.data, at(0))
		if done() != step.done {
			t.Fatalf("%s: done %v, want %v (%d of %d changed)", step.name, done(), step.done, w.count(), w.want)
		}
	}
	if !w.lastChanged().Equal(at(0)) {
		t.Errorf("last changed at %s, want %s", w.lastChanged(), at(0))
	}
}
