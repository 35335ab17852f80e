package rollout

import (
	"reflect"
	"testing"
	"time"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

func TestConfigFrom(t *testing.T) {
	cases := []struct {
		name string
		spec *gatewrightv1alpha1.BlueprintRollout
		want Config
	}{
		{"a blueprint without a rollout block rolls out in the default waves", nil,
			Config{Waves: DefaultWaves, Soak: 30 * time.Second, GateDeadline: 300 * time.Second}},
		{"the block's fields are used as written", &gatewrightv1alpha1.BlueprintRollout{
			Waves: []string{"2", "100%"}, SoakSeconds: 5, GateDeadlineSeconds: 60,
			Order: &gatewrightv1alpha1.RolloutOrder{NamespaceLabel: "ring"}, Paused: true,
		}, Config{Waves: []string{"2", "100%"}, Soak: 5 * time.Second, GateDeadline: time.Minute, OrderLabel: "ring", Paused: true}},
		{"all at once is one wave of everyone without a soak", &gatewrightv1alpha1.BlueprintRollout{
			Strategy: gatewrightv1alpha1.RolloutAllAtOnce, Waves: DefaultWaves, SoakSeconds: 30,
		}, Config{Waves: []string{"100%"}, GateDeadline: 300 * time.Second}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ConfigFrom(c.spec); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ConfigFrom = %+v, want %+v", got, c.want)
			}
		})
	}
}
