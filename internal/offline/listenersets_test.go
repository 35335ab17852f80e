package offline_test

import (
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/offline"
)

// listenerSetWorld is a class claiming ListenerSet whose Gateway allows those of every
// namespace; team-b's ListenerSet shop adds a listener, and its route cart names it.
const listenerSetWorld = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:
  serves: {features: [Gateway, HTTPRoute, ListenerSet]}
  gatewayTemplate:
    resourceTemplates:
    - name: listeners
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: listeners}
        data:
          valid: "{{ range .Listeners }}{{ if .valid }}{{ with .listenerSet }}{{ .namespace }}/{{ .name }}/{{ end }}{{ .name }} {{ end }}{{ end }}"
          routes: "{{ range .HTTPRoutes }}{{ .metadata.namespace }}/{{ .metadata.name }} {{ end }}"
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
  allowedListeners: {namespaces: {from: All}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: shop, namespace: team-b}
spec:
  parentRef: {name: web, namespace: team-a}
  listeners: [{name: shop, protocol: HTTP, port: 8080, hostname: shop.example.com}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: team-b}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: shop}]
`

// A render from files sees a ListenerSet's listeners and the routes on it, as the
// controller's does.
func TestRenderReadsListenerSets(t *testing.T) {
	set := &offline.Set{}
	if err := set.Add([]byte(listenerSetWorld)); err != nil {
		t.Fatal(err)
	}
	rendered, err := set.Render("gatewright-system", "")
	if err != nil {
		t.Fatal(err)
	}
	data := rendered[0].Objects[0].Object["data"].(map[string]any)
	if got, want := strings.TrimSpace(data["valid"].(string)), "http team-b/shop/shop"; got != want {
		t.Errorf("valid listeners = %q, want %q", got, want)
	}
	if got, want := strings.TrimSpace(data["routes"].(string)), "team-b/cart"; got != want {
		t.Errorf("routes = %q, want %q", got, want)
	}

	// A Gateway that does not allow the ListenerSet takes neither it nor its route.
	refused := &offline.Set{}
	if err := refused.Add([]byte(strings.Replace(listenerSetWorld, "allowedListeners: {namespaces: {from: All}}", "allowedListeners: {namespaces: {from: Same}}", 1))); err != nil {
		t.Fatal(err)
	}
	rendered, err = refused.Render("gatewright-system", "")
	if err != nil {
		t.Fatal(err)
	}
	data = rendered[0].Objects[0].Object["data"].(map[string]any)
	if got := strings.TrimSpace(data["valid"].(string) + data["routes"].(string)); got != "http" {
		t.Errorf("on a Gateway that refuses the ListenerSet: listeners and routes %q, want http alone", got)
	}
}
