package revisions

import (
	"reflect"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

const system = "gatewright-system"

// The values of rolloutWithBlueprint: unset (a class-wide config rides by default), on
// and off (the provider's opt-out).
var (
	unset   *bool
	on, off = ptr.To(true), ptr.To(false)
)

func classConfig(namespace, name string, rides *bool, replicas string, targets ...gatewayv1.LocalPolicyTargetReference) gatewrightv1alpha1.GatewayClassConfig {
	return gatewrightv1alpha1.GatewayClassConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: gatewrightv1alpha1.GatewayClassConfigSpec{
			TargetRefs: targets, RolloutWithBlueprint: rides,
			DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: &apiextensionsv1.JSON{Raw: []byte(`{"replicas":` + replicas + `}`)}},
		},
	}
}

func class(name string) gatewayv1.LocalPolicyTargetReference {
	return gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "GatewayClass", Name: gatewayv1.ObjectName(name)}
}

func namespace(name string) gatewayv1.LocalPolicyTargetReference {
	return gatewayv1.LocalPolicyTargetReference{Kind: "Namespace", Name: gatewayv1.ObjectName(name)}
}

func names(configs []gatewrightv1alpha1.GatewayClassConfig) []string {
	var out []string
	for _, c := range configs {
		out = append(out, c.Namespace+"/"+c.Name+"="+string(c.Spec.Default.Raw))
	}
	return out
}

func TestClassConfigsTakesTheConfigsThatRideTheBlueprintsClasses(t *testing.T) {
	live := []gatewrightv1alpha1.GatewayClassConfig{
		classConfig(system, "z-fleet", unset, "2", class("internet")),
		classConfig(system, "a-other-class", unset, "2", class("intranet")),
		classConfig(system, "not-riding", off, "2", class("internet")),
		classConfig("team-a", "elsewhere", unset, "2", class("internet")),
		classConfig(system, "a-fleet", unset, "3", class("internet"), class("intranet")),
	}
	got, err := ClassConfigs(live, system, []string{"internet"})
	if err != nil {
		t.Fatal(err)
	}
	var gotNames []string
	for _, c := range got {
		gotNames = append(gotNames, c.Name)
	}
	if want := []string{"a-fleet", "z-fleet"}; !reflect.DeepEqual(gotNames, want) {
		t.Errorf("ClassConfigs = %v, want %v (riding, in the controller namespace, on a class of the blueprint, by name)", gotNames, want)
	}
}

func TestClassConfigsRefusesMoreThanARevisionHolds(t *testing.T) {
	var live []gatewrightv1alpha1.GatewayClassConfig
	for i := range gatewrightv1alpha1.MaxRevisionClassConfigs + 1 {
		live = append(live, classConfig(system, string(rune('a'+i%26))+string(rune('a'+i/26)), unset, "1", class("internet")))
	}
	if _, err := ClassConfigs(live, system, []string{"internet"}); err == nil {
		t.Error("ClassConfigs took more configs than a revision holds")
	}
}

func TestRidesOnlyClassWideConfigsOnClasses(t *testing.T) {
	cases := []struct {
		name   string
		config gatewrightv1alpha1.GatewayClassConfig
		want   bool
	}{
		{"a class-wide config rides by default", classConfig(system, "c", unset, "1", class("internet")), true},
		{"a class-wide config that says true rides", classConfig(system, "c", on, "1", class("internet")), true},
		{"a class-wide config that opts out with false does not", classConfig(system, "c", off, "1", class("internet")), false},
		{"in a tenant namespace it does not", classConfig("team-a", "c", unset, "1", class("internet")), false},
		{"in a tenant namespace it does not though it says true", classConfig("team-a", "c", on, "1", class("internet")), false},
		{"targeting a namespace it does not", classConfig(system, "c", unset, "1", class("internet"), namespace(system)), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Rides(&c.config, system); got != c.want {
				t.Errorf("Rides = %v, want %v", got, c.want)
			}
		})
	}
}

func TestWithHeld(t *testing.T) {
	made := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	before, after := metav1.NewTime(made.Add(-time.Hour)), metav1.NewTime(made.Add(time.Hour))
	created := func(c gatewrightv1alpha1.GatewayClassConfig, at metav1.Time) gatewrightv1alpha1.GatewayClassConfig {
		c.CreationTimestamp = at
		return c
	}
	rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{ClassConfigsRideByDefault: true, ClassConfigs: []gatewrightv1alpha1.RevisionClassConfig{
		{Name: "fleet", Spec: classConfig(system, "fleet", unset, "2", class("internet")).Spec},
		{Name: "deleted", Spec: classConfig(system, "deleted", unset, "5", class("internet")).Spec},
		{Name: "turned-off", Spec: classConfig(system, "turned-off", unset, "6", class("internet")).Spec},
	}}
	rev.CreationTimestamp = metav1.NewTime(made)
	live := []gatewrightv1alpha1.GatewayClassConfig{
		created(classConfig(system, "fleet", unset, "3", class("internet")), before),
		created(classConfig(system, "new", unset, "4", class("internet")), after),
		created(classConfig(system, "turned-on", unset, "9", class("internet")), before),
		created(classConfig(system, "turned-off", off, "7", class("internet")), before),
		created(classConfig("team-a", "fleet", unset, "8", namespace("team-a")), before),
	}
	got := names(WithHeld(live, system, rev))
	want := []string{
		system + `/turned-on={"replicas":9}`,
		system + `/turned-off={"replicas":7}`,
		`team-a/fleet={"replicas":8}`,
		system + `/fleet={"replicas":2}`,
		system + `/deleted={"replicas":5}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WithHeld =\n%v\nwant (held copies of riding configs; a riding config made since waits; one that rode only since applies as it is; the others live)\n%v", got, want)
	}
}

func TestWithHeldOnARevisionFromBeforeRidingByDefault(t *testing.T) {
	made := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	after := metav1.NewTime(made.Add(time.Hour))
	created := func(c gatewrightv1alpha1.GatewayClassConfig) gatewrightv1alpha1.GatewayClassConfig {
		c.CreationTimestamp = after
		return c
	}
	old := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
	old.CreationTimestamp = metav1.NewTime(made)
	live := []gatewrightv1alpha1.GatewayClassConfig{
		created(classConfig(system, "opted-in", on, "2", class("internet"))),
		created(classConfig(system, "unset", unset, "3", class("internet"))),
	}
	got := names(WithHeld(live, system, old))
	// Made since the revision, the one that said true rode then and waits; the other did
	// not ride under the controller that made the revision: it was, and stays, in effect.
	if want := []string{system + `/unset={"replicas":3}`}; !reflect.DeepEqual(got, want) {
		t.Errorf("WithHeld = %v, want %v", got, want)
	}
}

func TestRendersAs(t *testing.T) {
	made := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	before, after := metav1.NewTime(made.Add(-time.Hour)), metav1.NewTime(made.Add(time.Hour))
	created := func(c gatewrightv1alpha1.GatewayClassConfig, at metav1.Time) gatewrightv1alpha1.GatewayClassConfig {
		c.CreationTimestamp = at
		return c
	}
	spec := gatewrightv1alpha1.GatewayClassBlueprintSpec{Rollout: &gatewrightv1alpha1.BlueprintRollout{SoakSeconds: 5}}
	revision := func(held ...gatewrightv1alpha1.GatewayClassConfig) *gatewrightv1alpha1.GatewayClassBlueprintRevision {
		rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{Spec: spec, ClassConfigsRideByDefault: true, ClassConfigs: []gatewrightv1alpha1.RevisionClassConfig{}}
		rev.CreationTimestamp = metav1.NewTime(made)
		for _, c := range held {
			rev.ClassConfigs = append(rev.ClassConfigs, gatewrightv1alpha1.RevisionClassConfig{Name: c.Name, Spec: c.Spec})
		}
		return rev
	}
	cases := []struct {
		name string
		rev  *gatewrightv1alpha1.GatewayClassBlueprintRevision
		live []gatewrightv1alpha1.GatewayClassConfig
		spec gatewrightv1alpha1.GatewayClassBlueprintSpec
		want bool
	}{
		{
			name: "a config in effect before the revision, riding since (the default turned on), renders as it did",
			rev:  revision(),
			live: []gatewrightv1alpha1.GatewayClassConfig{created(classConfig(system, "fleet", unset, "2", class("internet")), before)},
			spec: spec, want: true,
		},
		{
			name: "an opted-in config the revision holds, now riding by default with the same values, renders as it did",
			rev:  revision(classConfig(system, "fleet", on, "2", class("internet"))),
			live: []gatewrightv1alpha1.GatewayClassConfig{created(classConfig(system, "fleet", unset, "2", class("internet")), before)},
			spec: spec, want: true,
		},
		{
			name: "a held config that opted out applies live on both",
			rev:  revision(classConfig(system, "fleet", unset, "2", class("internet"))),
			live: []gatewrightv1alpha1.GatewayClassConfig{created(classConfig(system, "fleet", off, "7", class("internet")), before)},
			spec: spec, want: true,
		},
		{
			name: "a spec change of the rollout block alone renders as it did",
			rev:  revision(),
			spec: gatewrightv1alpha1.GatewayClassBlueprintSpec{Rollout: &gatewrightv1alpha1.BlueprintRollout{SoakSeconds: 60}}, want: true,
		},
		{
			name: "a held config whose values changed does not",
			rev:  revision(classConfig(system, "fleet", unset, "2", class("internet"))),
			live: []gatewrightv1alpha1.GatewayClassConfig{created(classConfig(system, "fleet", unset, "3", class("internet")), before)},
			spec: spec,
		},
		{
			name: "a config made since a revision from before riding by default, which did not ride then, renders as it did",
			rev:  &gatewrightv1alpha1.GatewayClassBlueprintRevision{Spec: spec, ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(made)}},
			live: []gatewrightv1alpha1.GatewayClassConfig{created(classConfig(system, "fleet", unset, "2", class("internet")), after)},
			spec: spec, want: true,
		},
		{
			name: "a config made since the revision does not: its Gateways wait for it",
			rev:  revision(),
			live: []gatewrightv1alpha1.GatewayClassConfig{created(classConfig(system, "fleet", unset, "2", class("internet")), after)},
			spec: spec,
		},
		{
			name: "a held config deleted since does not",
			rev:  revision(classConfig(system, "fleet", unset, "2", class("internet"))),
			spec: spec,
		},
		{
			name: "a held config that now targets other classes only does not",
			rev:  revision(classConfig(system, "fleet", unset, "2", class("internet"))),
			live: []gatewrightv1alpha1.GatewayClassConfig{created(classConfig(system, "fleet", unset, "2", class("intranet")), before)},
			spec: spec,
		},
		{
			name: "another template does not",
			rev:  revision(),
			spec: gatewrightv1alpha1.GatewayClassBlueprintSpec{Rollout: spec.Rollout, Helpers: "{{ define \"x\" }}{{ end }}"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			riding, err := ClassConfigs(c.live, system, []string{"internet"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := RendersAs(c.rev, &c.spec, riding, c.live, system)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("RendersAs = %v, want %v", got, c.want)
			}
		})
	}
}
