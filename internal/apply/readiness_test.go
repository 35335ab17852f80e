package apply_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/apply"
)

func TestReady(t *testing.T) {
	tests := []struct {
		name   string
		object string
		want   bool
	}{
		{"a ConfigMap is ready as soon as it exists", "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}", true},
		{"a ClusterIP Service is ready with its cluster IP", "{apiVersion: v1, kind: Service, metadata: {name: a}, spec: {clusterIP: 10.0.0.1}}", true},
		{"a LoadBalancer Service waits for its load balancer's address", "{apiVersion: v1, kind: Service, metadata: {name: a}, spec: {type: LoadBalancer, clusterIP: 10.0.0.1}}", false},
		{"a LoadBalancer Service with an address is ready", "{apiVersion: v1, kind: Service, metadata: {name: a}, spec: {type: LoadBalancer, clusterIP: 10.0.0.1}, status: {loadBalancer: {ingress: [{ip: 198.51.100.1}]}}}", true},
		{"an object whose Ready condition is False is not ready", "{apiVersion: example.com/v1, kind: Widget, metadata: {name: a, generation: 1}, status: {observedGeneration: 1, conditions: [{type: Ready, status: 'False'}]}}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(tt.object), &obj.Object); err != nil {
				t.Fatal(err)
			}
			if got, reason := apply.Readiness(obj); got != tt.want {
				t.Errorf("Readiness = %v (%q), want %v", got, reason, tt.want)
			}
		})
	}
}
