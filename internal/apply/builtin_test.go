package apply

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/gatewright/gatewright/internal/manifest"
)

// Built-in kinds are read through their Go types; what is read must still match what
// was rendered (numbers, quantities, bytes, int-or-string), and drift must still show.
func TestBuiltinKindsReadThroughTheirGoTypes(t *testing.T) {
	rendered, err := manifest.Decode([]byte(`
apiVersion: v1
kind: ConfigMap
metadata: {name: config, namespace: team, labels: {app: web}}
data: {replicas: "2", empty: ""}
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: team}
type: Opaque
data: {token: c2VjcmV0}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: team}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}, {name: admin, port: 9901, targetPort: admin}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: envoy
        image: envoyproxy/envoy:v1.36.2
        ports: [{containerPort: 8080}]
        resources: {limits: {cpu: 500m, memory: 128Mi}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range rendered {
		t.Run(obj.GetKind(), func(t *testing.T) {
			stored := builtinObject(obj.GroupVersionKind())
			if stored == nil {
				t.Fatalf("%s is not read as a built-in kind", obj.GroupVersionKind())
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, stored); err != nil {
				t.Fatal(err)
			}
			reader := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(stored).Build()
			live := &unstructured.Unstructured{}
			live.SetGroupVersionKind(obj.GroupVersionKind())
			if err := getUnstructured(context.Background(), reader, client.ObjectKeyFromObject(obj), live); err != nil {
				t.Fatal(err)
			}
			if live.GroupVersionKind() != obj.GroupVersionKind() {
				t.Errorf("read as %s, want %s", live.GroupVersionKind(), obj.GroupVersionKind())
			}
			if !contains(live.Object, obj.Object) {
				t.Errorf("the object read does not contain what was rendered:\nread:     %v\nrendered: %v", live.Object, obj.Object)
			}
			live.SetLabels(map[string]string{"app": "edited"})
			if obj.GetLabels() != nil && contains(live.Object, obj.Object) {
				t.Error("a changed label still matches")
			}
		})
	}
}

func TestCachedObject(t *testing.T) {
	for _, tt := range []struct {
		gvk   schema.GroupVersionKind
		typed bool
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, true},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, true},
		{schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "Gateway"}, false},
		{schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, false},
		{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMapList"}, false},
	} {
		obj := CachedObject(tt.gvk)
		_, isUnstructured := obj.(*unstructured.Unstructured)
		if isUnstructured == tt.typed {
			t.Errorf("CachedObject(%s) is %T, want typed: %v", tt.gvk, obj, tt.typed)
		}
		if isUnstructured && obj.GetObjectKind().GroupVersionKind() != tt.gvk {
			t.Errorf("CachedObject(%s) has kind %s", tt.gvk, obj.GetObjectKind().GroupVersionKind())
		}
	}
}

// The body of a built-in kind's apply carries the precondition; the rendered object
// it came from is left as it was.
func TestWithResourceVersion(t *testing.T) {
	rendered := map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": "web", "resourceVersion": "7"}, "data": map[string]any{"a": "b"}}
	created := withResourceVersion(rendered, absentVersion)
	if got := created["metadata"].(map[string]any)["resourceVersion"]; got != absentVersion {
		t.Errorf("resourceVersion %v, want %s", got, absentVersion)
	}
	if _, has := withResourceVersion(rendered, "")["metadata"].(map[string]any)["resourceVersion"]; has {
		t.Error(`"" kept a resourceVersion`)
	}
	if got := rendered["metadata"].(map[string]any)["resourceVersion"]; got != "7" {
		t.Errorf("the rendered object changed: resourceVersion %v", got)
	}
}
