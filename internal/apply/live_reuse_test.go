package apply

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// An apply that follows LiveRecorded starts from the objects it read: an object already
// as rendered costs neither a request nor a second read of the cache. An object read in
// another version than the one rendered is read again.
func TestApplyStartsFromTheObjectsReadEarlierInTheRound(t *testing.T) {
	owner := GatewayOwner(&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "u1"}})
	rendered := func() *unstructured.Unstructured {
		obj := &unstructured.Unstructured{Object: map[string]any{"data": map[string]any{"k": "v"}}}
		obj.SetAPIVersion("v1")
		obj.SetKind("ConfigMap")
		obj.SetNamespace("team-a")
		obj.SetName("web-config")
		obj.SetLabels(map[string]string{templateLabel: "config"})
		return obj
	}
	planned := Plan(owner, []*unstructured.Unstructured{rendered()})
	live := rendered()
	Plan(owner, []*unstructured.Unstructured{live})
	labels := map[string]string{templateLabel: "config", gatewrightv1alpha1.LabelManagedBy: gatewrightv1alpha1.ManagedByValue}
	for k, v := range owner.Labels {
		labels[k] = v
	}
	live.SetLabels(labels)

	for _, tt := range []struct {
		name      string
		version   string
		wantReads int
	}{
		{name: "read in the rendered version", version: "v1", wantReads: 0},
		{name: "read in another version", version: "v2", wantReads: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reads := 0
			c := countingGets(&reads)
			a := New(c, c)
			read := live.DeepCopy()
			read.SetAPIVersion(tt.version)
			byKey := map[string]*unstructured.Unstructured{planned[0].key(): read}
			objs := []*unstructured.Unstructured{rendered()}
			Plan(owner, objs)
			res, _ := a.applyPlanned(context.Background(), owner, objs, planned, planned, nil, byKey)
			if reads != tt.wantReads {
				t.Errorf("%d reads of the cache, want %d", reads, tt.wantReads)
			}
			if tt.wantReads == 0 && (res == nil || res.Live[0] != read || len(res.Changed) != 0) {
				t.Errorf("the object read before is not taken as live and unchanged: %+v", res)
			}
		})
	}
}
