package controllers

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

func TestSentAssignmentsAreWrittenOnceUntilTheCacheShowsThem(t *testing.T) {
	var s sentAssignments
	key := client.ObjectKey{Namespace: "team-a", Name: "gateway.web"}
	rendering := func(target int64, gates bool) []gatewrightv1alpha1.Rendering {
		r := gatewrightv1alpha1.Rendering{TargetRevision: target, TargetBlueprint: "bp", GatesRollout: gates}
		r.Namespace, r.Name = key.Namespace, key.Name
		return []gatewrightv1alpha1.Rendering{r}
	}
	two := sentAssignment{revision: 2, gates: true}
	if !s.first("bp", key, two) {
		t.Fatal("the first assignment is not written")
	}
	s.seen("bp", rendering(1, false)) // a cache behind the write
	if s.first("bp", key, two) {
		t.Error("an assignment the cache does not show yet is written again")
	}
	if !s.first("other", key, two) {
		t.Error("another blueprint's assignments are not its own")
	}
	s.seen("bp", rendering(2, true))
	if !s.first("bp", key, two) {
		t.Error("once the cache shows it, the same assignment made again (after a rollback) is not written")
	}
	if !s.first("bp", key, sentAssignment{revision: 1}) {
		t.Error("another assignment to the same Gateway is not written")
	}
	s.seen("bp", nil)
	if !s.first("bp", key, sentAssignment{revision: 1}) {
		t.Error("the assignment of a Rendering that is gone is kept")
	}
	recreated := rendering(0, false)
	recreated[0].UID = "second"
	s.seen("bp", recreated) // deleted and made again before the cache showed the write
	if !s.first("bp", key, sentAssignment{revision: 1, uid: "second"}) {
		t.Error("a Rendering made again under the same name does not get the assignment its predecessor was sent")
	}
}
