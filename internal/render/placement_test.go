package render_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/render"
)

// A Gateway's spec.infrastructure labels and annotations are its owner's word on the
// Gateway's namespace. Argo CD, Flux and external-dns act on such metadata, so it must
// not reach objects in an attached route's namespace, nor cluster-scoped objects.
func TestInfrastructureMetadataStaysInTheGatewaysNamespace(t *testing.T) {
	parsed, err := render.Parse(blueprint(t, `
clusterScopedKinds: [{group: "", kind: Namespace}]
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: config}
  - name: namespace
    template: |
      apiVersion: v1
      kind: Namespace
      metadata: {name: "{{ .Gateway.metadata.name }}-dns"}
httpRouteTemplate:
  resourceTemplates:
  - name: route
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: "{{ .HTTPRoute.metadata.name }}"}
`))
	if err != nil {
		t.Fatal(err)
	}
	in := testInput(nil)
	in.Gateway.Spec.Infrastructure = &gatewayv1.GatewayInfrastructure{
		Labels:      map[gatewayv1.LabelKey]gatewayv1.LabelValue{"argocd.argoproj.io/instance": "team-a"},
		Annotations: map[gatewayv1.AnnotationKey]gatewayv1.AnnotationValue{"external-dns.alpha.kubernetes.io/hostname": "shop.example.com"},
	}
	gatewayObjects, err := parsed.Gateway(in)
	if err != nil {
		t.Fatal(err)
	}
	routeObjects := func(namespace string) []*unstructured.Unstructured {
		route := &gatewayv1.HTTPRoute{}
		route.Name, route.Namespace = "shop", namespace
		out, err := parsed.Route(in, route)
		if err != nil {
			t.Fatal(err)
		}
		return out.Objects
	}
	tests := []struct {
		name   string
		object *unstructured.Unstructured
		stamps bool
	}{
		{"a gateway object in the Gateway's namespace gets them", gatewayObjects.Objects[0], true},
		{"a cluster-scoped gateway object does not", gatewayObjects.Objects[1], false},
		{"a route object in the Gateway's namespace gets them", routeObjects("team-a")[0], true},
		{"a route object in the route's other namespace does not", routeObjects("team-b")[0], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, labelled := tt.object.GetLabels()["argocd.argoproj.io/instance"]
			_, annotated := tt.object.GetAnnotations()["external-dns.alpha.kubernetes.io/hostname"]
			if labelled != tt.stamps || annotated != tt.stamps {
				t.Errorf("%s %s/%s: labels %v, annotations %v; want the Gateway's infrastructure metadata: %v",
					tt.object.GetKind(), tt.object.GetNamespace(), tt.object.GetName(), tt.object.GetLabels(), tt.object.GetAnnotations(), tt.stamps)
			}
			if tt.object.GetLabels()["gatewright.dev/gateway-namespace"] != "team-a" {
				t.Errorf("Gatewright's own labels are missing: %v", tt.object.GetLabels())
			}
		})
	}
}
