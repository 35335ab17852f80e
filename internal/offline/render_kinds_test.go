package offline_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/offline"
)

// `gatewright render` renders each route with its kind's route templates, and says of
// each document which route, of which kind, it came from; a route of a kind without
// route templates renders nothing of its own.
func TestRenderRendersRoutesOfEveryKindWithTheirKindsTemplates(t *testing.T) {
	set := &offline.Set{}
	input := `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:
  serves: {protocols: [HTTP, TCP], routeKinds: [HTTPRoute, GRPCRoute, TCPRoute]}
  gatewayTemplate: {resourceTemplates: []}
  httpRouteTemplate:
    resourceTemplates:
    - name: route
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: http-{{ .Route.metadata.name }}}
  grpcRouteTemplate:
    resourceTemplates:
    - name: route
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: grpc-{{ .GRPCRoute.metadata.name }}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gw}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: bp}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: gw
  listeners: [{name: http, protocol: HTTP, port: 80}, {name: tcp, protocol: TCP, port: 5432}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: team-a}
spec: {parentRefs: [{name: web, sectionName: http}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: shop, namespace: team-a}
spec: {parentRefs: [{name: web, sectionName: http}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata: {name: db, namespace: team-a}
spec:
  parentRefs: [{name: web, sectionName: tcp}]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
`
	if err := set.Add([]byte(input)); err != nil {
		t.Fatal(err)
	}
	rendered, err := set.Render("gatewright-system", "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rendered[1:] {
		for _, obj := range r.Objects {
			got = append(got, r.RouteKind+" "+r.Route+": "+obj.GetName())
		}
	}
	want := []string{"HTTPRoute team-a/shop: http-shop", "GRPCRoute team-a/shop: grpc-shop"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rendered\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var stream bytes.Buffer
	if err := offline.WriteStream(&stream, rendered); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stream.String(), "# Source: GRPCRoute team-a/shop on Gateway team-a/web, template grpcroute/route") {
		t.Errorf("the stream does not say the GRPCRoute's object came from its template:\n%s", stream.String())
	}
}
