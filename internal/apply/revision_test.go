package apply

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
	"github.com/gatewright/gatewright/internal/values"
)

func TestRecordKeepsTheRevisionItWasRenderedFromAndTheRolloutsTarget(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	a := New(c, c)
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "u1"}}
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "envoy"}}

	rec, err := a.LoadRecord(ctx, GatewayOwner(gw))
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Rendered(&values.Result{Values: map[string]any{"replicas": 2}}, "envoy", bp, 3); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveRecord(ctx, rec, configMaps(2)); err != nil {
		t.Fatal(err)
	}
	part := &gatewrightv1alpha1.Rendering{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "gateway.web"}, part); err != nil {
		t.Fatal(err)
	}
	if part.Revision != 3 || len(part.ValuesHash) != 64 {
		t.Fatalf("part 0 records revision %d and values hash %q, want 3 and a SHA-256", part.Revision, part.ValuesHash)
	}

	// The rollout engine assigns a target; the next render must not take it away.
	if err := AssignRevision(ctx, c, part, "envoy", 4, true); err != nil {
		t.Fatal(err)
	}
	if target, err := TargetRevision(ctx, c, gw, "envoy"); err != nil || target != 4 {
		t.Fatalf("TargetRevision reads %d (%v), want 4", target, err)
	}
	// A revision number means something only of the blueprint that assigned it: moved to
	// a class of another blueprint, the Gateway runs that one's current revision.
	if target, err := TargetRevision(ctx, c, gw, "istio"); err != nil || target != 0 {
		t.Fatalf("TargetRevision for another blueprint reads %d (%v), want 0", target, err)
	}
	rec, err = a.LoadRecord(ctx, GatewayOwner(gw))
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Rendered(&values.Result{Values: map[string]any{"replicas": 3}}, "envoy", bp, 4); err != nil {
		t.Fatal(err)
	}
	before := part.ValuesHash
	if err := a.SaveRecord(ctx, rec, configMaps(2)); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "gateway.web"}, part); err != nil {
		t.Fatal(err)
	}
	if part.Revision != 4 || part.TargetFor("envoy") != 4 || !part.GatesRollout || part.ValuesHash == before {
		t.Errorf("after a render of revision 4 with other values part 0 records revision %d, target %d, gates %v, hash changed %v", part.Revision, part.TargetRevision, part.GatesRollout, part.ValuesHash != before)
	}
}

func TestTargetRevisionOfAGatewayWithoutRecordIsNone(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}}
	if target, err := TargetRevision(context.Background(), c, gw, "envoy"); err != nil || target != 0 {
		t.Errorf("TargetRevision is %d (%v), want 0", target, err)
	}
}

func TestNewInputsTellsARenderFromAnotherRevisionOrOtherValues(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	a := New(c, c)
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "u1"}}
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "envoy"}}
	render := func(replicas int, revision int64) *Record {
		t.Helper()
		rec, err := a.LoadRecord(ctx, GatewayOwner(gw))
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Rendered(&values.Result{Values: map[string]any{"replicas": replicas}}, "envoy", bp, revision); err != nil {
			t.Fatal(err)
		}
		return rec
	}

	first := render(2, 3)
	if first.NewInputs() {
		t.Fatal("an owner's first render has nothing to differ from")
	}
	if err := a.SaveRecord(ctx, first, configMaps(1)); err != nil {
		t.Fatal(err)
	}
	if first.NewInputs() {
		t.Fatal("saving a record must not make it differ from itself")
	}
	type rendered struct {
		replicas int
		revision int64
	}
	for _, tc := range []struct {
		name     string
		from, to rendered
		want     bool
	}{
		{"the same revision and values", rendered{2, 3}, rendered{2, 3}, false},
		{"another revision", rendered{2, 3}, rendered{2, 4}, true},
		{"other values", rendered{2, 3}, rendered{3, 3}, true},
		{"revision 0, a blueprint's live spec, to its first revision", rendered{2, 0}, rendered{2, 1}, false},
		{"revision 0 to its first revision, with other values", rendered{2, 0}, rendered{3, 1}, true},
	} {
		if err := a.SaveRecord(ctx, render(tc.from.replicas, tc.from.revision), configMaps(1)); err != nil {
			t.Fatal(err)
		}
		rec := render(tc.to.replicas, tc.to.revision)
		if err := a.SaveRecord(ctx, rec, configMaps(1)); err != nil {
			t.Fatal(err)
		}
		if got := rec.NewInputs(); got != tc.want {
			t.Errorf("%s: NewInputs after the save = %v, want %v", tc.name, got, tc.want)
		}
	}
}
