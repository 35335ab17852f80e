package snapshot

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/scheme"
	"github.com/gatewright/gatewright/internal/values"
)

func TestRunningPicksTheRevisionAGatewayRuns(t *testing.T) {
	live := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "envoy", UID: "uid-live", Generation: 9}}
	live.Spec.GatewayTemplate.ResourceTemplates = []gatewrightv1alpha1.ResourceTemplate{{Name: "a", Template: "live"}}
	revision := func(n int64, template string, owner types.UID) *gatewrightv1alpha1.GatewayClassBlueprintRevision {
		rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{Blueprint: "envoy", Revision: n}
		rev.Name, rev.UID = revisions.Name("envoy", n), "uid-rev"
		rev.OwnerReferences = []metav1.OwnerReference{{Kind: "GatewayClassBlueprint", Name: "envoy", UID: owner, Controller: ptr.To(true)}}
		rev.Spec.GatewayTemplate.ResourceTemplates = []gatewrightv1alpha1.ResourceTemplate{{Name: "a", Template: template}}
		return rev
	}
	reader := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(revision(1, "one", live.UID), revision(2, "two", live.UID), revision(4, "of a blueprint deleted since", "uid-earlier")).Build()

	cases := []struct {
		name     string
		current  int64
		target   int64
		template string
		revision int64
		fails    bool
	}{
		{"a blueprint without revisions renders its live spec", 0, 0, "live", 0, false},
		{"a Gateway without a target runs the current revision", 2, 0, "two", 2, false},
		{"a Gateway with a target newer than the current revision runs it", 1, 2, "two", 2, false},
		{"a target older than the current revision yields to it", 2, 1, "two", 2, false},
		{"a revision not read yet is an error to retry, never the live spec", 3, 0, "", 0, true},
		{"a revision of an earlier blueprint of the same name is never run", 4, 0, "", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bp := live.DeepCopy()
			bp.Status.CurrentRevision = c.current
			got, n, err := running(&Gatherer{Reader: reader}, bp, c.target)
			if c.fails {
				if err == nil {
					t.Fatalf("got revision %d, want an error", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tmpl := got.Spec.GatewayTemplate.ResourceTemplates[0].Template; tmpl != c.template || n != c.revision || got.Name != "envoy" {
				t.Errorf("got %s template %q at revision %d, want envoy %q at %d", got.Name, tmpl, n, c.template, c.revision)
			}
			if n > 0 && (got.UID != "uid-rev" || got.Generation != n) {
				t.Errorf("the parse cache key is UID %s generation %d, want the revision's UID and number", got.UID, got.Generation)
			}
		})
	}
}

// running is the blueprint a Gateway assigned target runs, as the Gatherer resolves it,
// and its revision.
func running(g *Gatherer, live *gatewrightv1alpha1.GatewayClassBlueprint, target int64) (*gatewrightv1alpha1.GatewayClassBlueprint, int64, error) {
	rev, err := g.resolve(context.Background(), nil, live, func(string) int64 { return target })
	if err != nil {
		return nil, 0, err
	}
	in := values.Inputs{Blueprint: live}
	n := useRevision(&in, rev)
	return in.Blueprint, n, nil
}
