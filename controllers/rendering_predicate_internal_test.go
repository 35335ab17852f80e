package controllers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// The Rendering reconciler sees a Rendering's update only when it may be done with it:
// not the thousand writes of objects and values a class-wide change makes.
func TestRenderingUpdatesThatMayLeaveItDone(t *testing.T) {
	rendering := func(edit func(*gatewrightv1alpha1.Rendering)) *gatewrightv1alpha1.Rendering {
		r := &gatewrightv1alpha1.Rendering{Owner: gatewrightv1alpha1.RenderingOwner{Kind: "Gateway", Name: "web", UID: "1", GatewayNamespace: "team-a", GatewayName: "web"}}
		edit(r)
		return r
	}
	old := rendering(func(*gatewrightv1alpha1.Rendering) {})
	for _, tc := range []struct {
		name string
		edit func(*gatewrightv1alpha1.Rendering)
		want bool
	}{
		{"its values", func(r *gatewrightv1alpha1.Rendering) { r.ValuesHash, r.Revision = "b", 2 }, false},
		{"its objects", func(r *gatewrightv1alpha1.Rendering) {
			r.Objects = []gatewrightv1alpha1.RenderedObject{{Kind: "ConfigMap", Name: "c"}}
		}, false},
		{"marked deleted", func(r *gatewrightv1alpha1.Rendering) { now := metav1.Now(); r.DeletionTimestamp = &now }, true},
		{"another owner of the name", func(r *gatewrightv1alpha1.Rendering) { r.Owner.UID = "2" }, true},
	} {
		if got := renderingMayBeDone.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: rendering(tc.edit)}); got != tc.want {
			t.Errorf("an update of %s passes: %v, want %v", tc.name, got, tc.want)
		}
	}
	if !renderingMayBeDone.Create(event.CreateEvent{Object: old}) {
		t.Error("a Rendering's creation does not pass")
	}
}
