package revisions

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// TestInEffect: a config is in effect on a revision exactly as WithHeld renders it there.
func TestInEffect(t *testing.T) {
	made := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	before, after := metav1.NewTime(made.Add(-time.Hour)), metav1.NewTime(made.Add(time.Hour))
	created := func(c gatewrightv1alpha1.GatewayClassConfig, at metav1.Time) *gatewrightv1alpha1.GatewayClassConfig {
		c.CreationTimestamp = at
		return &c
	}
	rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{ClassConfigsRideByDefault: true, ClassConfigs: []gatewrightv1alpha1.RevisionClassConfig{
		{Name: "fleet", Spec: classConfig(system, "fleet", unset, "2", class("internet")).Spec},
	}}
	rev.CreationTimestamp = metav1.NewTime(made)
	for _, c := range []struct {
		name string
		gcc  *gatewrightv1alpha1.GatewayClassConfig
		rev  *gatewrightv1alpha1.GatewayClassBlueprintRevision
		want bool
	}{
		{"held as it is", created(classConfig(system, "fleet", unset, "2", class("internet")), before), rev, true},
		{"held, changed since", created(classConfig(system, "fleet", unset, "3", class("internet")), before), rev, false},
		{"held, opting in or out changes nothing rendered", created(classConfig(system, "fleet", on, "2", class("internet")), before), rev, true},
		{"made since the revision: waits for a newer one", created(classConfig(system, "new", unset, "4", class("internet")), after), rev, false},
		{"rode only since: applies as it is", created(classConfig(system, "older", unset, "4", class("internet")), before), rev, true},
		{"opted out: applies at once", created(classConfig(system, "new", off, "4", class("internet")), after), rev, true},
		{"a tenant's: applies at once", created(classConfig("team-a", "fleet", unset, "8", namespace("team-a")), after), rev, true},
		{"revision 0, the live spec", created(classConfig(system, "new", unset, "4", class("internet")), after), nil, true},
	} {
		got, err := InEffect(c.gcc, system, c.rev)
		if err != nil || got != c.want {
			t.Errorf("%s: InEffect = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
