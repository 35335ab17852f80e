package apply

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// An object the record lists but the cache does not hold yet (the round right after
// the apply that created it) is read from the API server: a template that depends on
// it renders now, rather than wait for a watch event that an own write never brings.
// An object gone from both is left out.
func TestLiveReadsTheServerForAnInventoriedObjectTheCacheLacks(t *testing.T) {
	owner := GatewayOwner(&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "u1"}})
	object := func(name string) *unstructured.Unstructured {
		obj := &unstructured.Unstructured{Object: map[string]any{"data": map[string]any{"k": "v"}}}
		obj.SetAPIVersion("v1")
		obj.SetKind("ConfigMap")
		obj.SetNamespace("team-a")
		obj.SetName(name)
		labels := map[string]string{templateLabel: "first", gatewrightv1alpha1.LabelManagedBy: gatewrightv1alpha1.ManagedByValue}
		for k, v := range owner.Labels {
			labels[k] = v
		}
		obj.SetLabels(labels)
		return obj
	}
	created, gone := object("web-first"), object("web-gone")
	inv := Plan(owner, []*unstructured.Unstructured{created.DeepCopy(), gone.DeepCopy()})

	var cacheReads, serverReads int
	a := New(countingGets(&cacheReads), countingGets(&serverReads, created))
	live, err := a.Live(context.Background(), owner, inv)
	if err != nil {
		t.Fatal(err)
	}
	if got := live["first"]; len(got) != 1 || got[0].GetName() != "web-first" {
		t.Fatalf("live = %v, want web-first only, read from the API server", live)
	}
	if cacheReads != 2 || serverReads != 2 {
		t.Errorf("%d cache and %d server reads, want 2 and 2", cacheReads, serverReads)
	}
}
