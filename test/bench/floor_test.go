package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/offline"
)

// The floor is compared with Gatewright on the same work only if it applies what the
// bench blueprint renders, with the values of the bench policies.
func TestFloorAppliesWhatTheBenchBlueprintRenders(t *testing.T) {
	gw := gateway(13, 10)
	set := &offline.Set{}
	gwYAML, err := yaml.Marshal(gw)
	if err != nil {
		t.Fatal(err)
	}
	for _, stream := range []string{blueprint, tenant(gw.Namespace), "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\n" + string(gwYAML)} {
		if err := set.Add([]byte(stream)); err != nil {
			t.Fatal(err)
		}
	}
	rendered, err := set.Render(controllerNamespace, gw.Namespace+"/"+gw.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(rendered) != 1 {
		t.Fatalf("rendered %d Gateways, want 1", len(rendered))
	}
	if diff := cmp.Diff(byName(t, rendered[0].Objects), byName(t, floorChildren(gw))); diff != "" {
		t.Errorf("the floor's children differ from the blueprint's (-blueprint +floor):\n%s", diff)
	}
}

// byName keys objects by kind and name, each as the YAML it is applied as.
func byName(t *testing.T, objs []*unstructured.Unstructured) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, obj := range objs {
		data, err := yaml.Marshal(obj.Object)
		if err != nil {
			t.Fatal(err)
		}
		out[obj.GetKind()+" "+obj.GetName()] = string(data)
	}
	return out
}
