package apply

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

func object(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}

func TestMatches(t *testing.T) {
	rendered := `
apiVersion: v1
kind: Service
metadata: {name: web, labels: {a: "1"}}
spec:
  ports: [{name: http, port: 80}]
`
	tests := []struct {
		name     string
		live     string
		rendered string
		want     bool
	}{
		{"the live object has server defaults and status on top", `
apiVersion: v1
kind: Service
metadata: {name: web, labels: {a: "1"}, resourceVersion: "7", uid: x}
spec:
  ports: [{name: http, port: 80, protocol: TCP, targetPort: 80}]
  clusterIP: 10.0.0.1
status: {loadBalancer: {}}
`, rendered, true},
		{"someone changed a rendered field", `
apiVersion: v1
kind: Service
metadata: {name: web, labels: {a: "2"}}
spec:
  ports: [{name: http, port: 80}]
`, rendered, false},
		{"someone removed a list item", `
apiVersion: v1
kind: Service
metadata: {name: web, labels: {a: "1"}}
spec:
  ports: []
`, rendered, false},
		{"the template stopped rendering a label", `
apiVersion: v1
kind: Service
metadata: {name: web, labels: {a: "1"}}
spec:
  ports: [{name: http, port: 80}]
`, `
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  ports: [{name: http, port: 80}]
`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The live object was applied from the first rendering, hash and all.
			applied := object(t, rendered)
			stampRenderedHash(applied)
			live := object(t, tt.live)
			annotations := live.GetAnnotations()
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[RenderedHashAnnotation] = applied.GetAnnotations()[RenderedHashAnnotation]
			live.SetAnnotations(annotations)

			desired := object(t, tt.rendered)
			stampRenderedHash(desired)
			if got := matches(live, desired); got != tt.want {
				t.Errorf("matches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlanningTwiceChangesNothing(t *testing.T) {
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "uid-1"}}
	owner := GatewayOwner(gw)
	for _, annotations := range []map[string]string{nil, {"team": "a"}} {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
		obj.SetNamespace("team-a")
		obj.SetName("web-config")
		obj.SetAnnotations(annotations)
		once := Plan(owner, []*unstructured.Unstructured{obj})
		twice := Plan(owner, []*unstructured.Unstructured{obj})
		if once[0].Hash != twice[0].Hash {
			t.Errorf("annotations %v: planned hash %s, then %s", annotations, once[0].Hash, twice[0].Hash)
		}
	}
}
