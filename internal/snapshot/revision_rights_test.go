package snapshot

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/translate"
)

// revisionsRefused refuses the fixture's revisions and, with records, its Renderings.
func revisionsRefused(records bool) func(obj any, _ string) error {
	return func(obj any, _ string) error {
		switch obj.(type) {
		case *gatewrightv1alpha1.GatewayClassBlueprintRevision:
			return forbidden
		case *gatewrightv1alpha1.RenderingList:
			if records {
				return forbidden
			}
		}
		return nil
	}
}

// reachedRevisions reads each context a policy on the fixture's class reaches as
// "<context> <greeting> <revision>".
func reachedRevisions(t *testing.T, g *Gatherer) []string {
	t.Helper()
	reached, err := g.Policy(t.Context(), system, classTarget("internet")[0], &render.Cache{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range reached[:2] { // the Gateways
		if c.Err != nil {
			got = append(got, c.String()+" "+c.Err.Error())
			continue
		}
		got = append(got, fmt.Sprintf("%s %s %d", c, c.Values.Values.Values["greeting"], c.Revision))
	}
	return got
}

func TestWithACallersRightsTheRecordsOfANamespaceAreListedOnce(t *testing.T) {
	lists, gets := 0, 0
	r := reader(t, func(obj any, _ string) error {
		switch obj.(type) {
		case *gatewrightv1alpha1.RenderingList:
			lists++
		case *gatewrightv1alpha1.Rendering:
			gets++
		}
		return nil
	})
	got := reachedRevisions(t, &Gatherer{Reader: r, ControllerNamespace: system, Rights: &Rights{}})
	if want := []string{"Gateway team-a/assigned held-two 2", "Gateway team-a/web held-one 1"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if lists != 1 || gets != 0 {
		t.Errorf("%d lists and %d reads of Renderings, want the one list of team-a's", lists, gets)
	}
}

func TestARevisionACallerMayNotReadIsAnErrorThatNamesItOrAStandIn(t *testing.T) {
	r := reader(t, revisionsRefused(false))
	_, err := (&Gatherer{Reader: r, ControllerNamespace: system, Rights: &Rights{}}).Gateway(t.Context(), gateway("web"), internet(t, r), ValuesOnly())
	if want := "GatewayClassBlueprint envoy: reading GatewayClassBlueprintRevision envoy-1 (the revision the Gateway runs): "; !apierrors.IsForbidden(err) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want a Forbidden error that starts %q", err, want)
	}

	var refused []string // each once, as explain says them
	told := func(what, standIn string) {
		if line := what + ": " + standIn; !slices.Contains(refused, line) {
			refused = append(refused, line)
		}
	}
	r = reader(t, revisionsRefused(true))
	got := reachedRevisions(t, &Gatherer{Reader: r, ControllerNamespace: system, Rights: &Rights{Refused: told}})
	if want := []string{"Gateway team-a/assigned live 0", "Gateway team-a/web live 0"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want the live spec for every Gateway: %q", got, want)
	}
	want := []string{
		"the Renderings of namespace team-a: its Gateways are taken to run their blueprint's currentRevision, not one a rollout assigned them",
		"GatewayClassBlueprintRevision envoy-1: computed with the live spec of GatewayClassBlueprint envoy instead of revision 1",
	}
	if !slices.Equal(refused, want) {
		t.Errorf("told %q, want %q", refused, want)
	}
}

// Through the API server a revision not found is no cache behind: the contexts on it
// are not computed, and the others are.
func TestWithACallersRightsARevisionNotFoundIsTheErrorOfItsContexts(t *testing.T) {
	r := reader(t, func(obj any, name string) error {
		if _, ok := obj.(*gatewrightv1alpha1.GatewayClassBlueprintRevision); ok && name == revisions.Name("envoy", 2) {
			return notFound
		}
		return nil
	})
	got := reachedRevisions(t, &Gatherer{Reader: r, ControllerNamespace: system, Rights: &Rights{}})
	if len(got) != 2 || !strings.Contains(got[0], "not read yet") || strings.Contains(got[0], translate.ErrCacheBehind.Error()) || got[1] != "Gateway team-a/web held-one 1" {
		t.Errorf("got %q, want team-a/assigned not computed (not for a cache behind) and team-a/web at revision 1", got)
	}
}
