package offline_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/test/testenv"
)

const attachmentWorld = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:
  gatewayTemplate:
    resourceTemplates:
    - name: routes
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: routes}
        data:
          attached: {{ range .HTTPRoutes }}{{ .metadata.namespace }}/{{ .metadata.name }} {{ end }}
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
  listeners:
  - name: http
    protocol: HTTP
    port: 80
    allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {access: web}}}}
  - name: own
    protocol: HTTP
    port: 8080
    allowedRoutes: {namespaces: {from: Same}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b, labels: {access: web}}
`

func route(namespace, name, section string) string {
	return "\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: " + namespace + "}\n" +
		"spec:\n  parentRefs: [{name: web, namespace: team-a" + section + "}]\n"
}

// Offline renders attach routes by the same rules as the controller, namespace labels
// from the input included.
func TestRenderAttachesRoutesByListenerRules(t *testing.T) {
	set := &offline.Set{}
	input := attachmentWorld +
		route("team-a", "own", "") +
		route("team-b", "selected", "") +
		route("team-c", "unlabelled", "") +
		route("team-b", "wrong-section", ", sectionName: own")
	if err := set.Add([]byte(input)); err != nil {
		t.Fatal(err)
	}
	rendered, err := set.Render("gatewright-system", "")
	if err != nil {
		t.Fatal(err)
	}
	got := rendered[0].Objects[0].Object["data"].(map[string]any)["attached"]
	if want := "team-a/own team-b/selected"; strings.TrimSpace(got.(string)) != want {
		t.Errorf("attached routes = %q, want %q", got, want)
	}
}

// Route templates see which backendRefs resolve, offline by the Services and
// ReferenceGrants of the input.
func TestRenderTellsRouteTemplatesWhichBackendRefsResolve(t *testing.T) {
	set := &offline.Set{}
	input := `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:
  gatewayTemplate: {resourceTemplates: []}
  httpRouteTemplate:
    resourceTemplates:
    - name: backends
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .HTTPRoute.metadata.name }}-backends}
        data:
          backends: "{{ range .BackendRefs }}{{ .rule }}:{{ .namespace }}/{{ .name }}:{{ .port }}={{ .resolved }}/{{ .reason }} {{ end }}"
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
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: shop, namespace: team-a}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: search, namespace: backends}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: routes, namespace: backends}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: team-a}]
  to: [{group: "", kind: Service}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: team-a}
spec:
  parentRefs: [{name: web}]
  rules:
  - backendRefs: [{name: shop, port: 80}, {name: gone, port: 80}]
  - backendRefs: [{name: search, namespace: backends, port: 8080}]
`
	if err := set.Add([]byte(input)); err != nil {
		t.Fatal(err)
	}
	rendered, err := set.Render("gatewright-system", "")
	if err != nil {
		t.Fatal(err)
	}
	got := rendered[1].Objects[0].Object["data"].(map[string]any)["backends"]
	want := "0:team-a/shop:80=true/ResolvedRefs 0:team-a/gone:80=false/BackendNotFound 1:backends/search:8080=true/ResolvedRefs"
	if strings.TrimSpace(got.(string)) != want {
		t.Errorf("backends = %q, want %q", got, want)
	}

	// Where the caller could not read the Services, a Service not in the input is not
	// said to be missing.
	set.ServicesUnread = true
	if rendered, err = set.Render("gatewright-system", ""); err != nil {
		t.Fatal(err)
	}
	got = rendered[1].Objects[0].Object["data"].(map[string]any)["backends"]
	want = "0:team-a/shop:80=true/ResolvedRefs 0:team-a/gone:80=true/ResolvedRefs 1:backends/search:8080=true/ResolvedRefs"
	if strings.TrimSpace(got.(string)) != want {
		t.Errorf("with the Services unread, backends = %q, want %q", got, want)
	}
}

// Gateway templates see which listeners are valid and which certificateRefs resolve,
// offline by the Secrets and ReferenceGrants of the input, and nothing of the Secrets.
func TestRenderTellsGatewayTemplatesWhichListenersAreValid(t *testing.T) {
	crt, key, err := testenv.Certificate("shop.example.com")
	if err != nil {
		t.Fatal(err)
	}
	set := &offline.Set{}
	input := `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:
  gatewayTemplate:
    resourceTemplates:
    - name: listeners
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: listeners}
        data:
          listeners: {{ toJson .Listeners | quote }}
          gateway: {{ toJson .Gateway | quote }}
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
  listeners:
  - {name: shop, protocol: HTTPS, port: 443, hostname: shop.example.com, tls: {certificateRefs: [{name: shop-tls}]}}
  - {name: missing, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: gone}]}}
  - {name: shared, protocol: HTTPS, port: 9443, tls: {certificateRefs: [{name: shared-tls, namespace: certs}]}}
  - {name: foreign, protocol: HTTPS, port: 10443, tls: {certificateRefs: [{name: theirs, namespace: team-b}]}}
---
apiVersion: v1
kind: Secret
metadata: {name: shop-tls, namespace: team-a}
type: kubernetes.io/tls
stringData: {tls.crt: CRT, tls.key: KEY}
---
apiVersion: v1
kind: Secret
metadata: {name: shared-tls, namespace: certs}
type: kubernetes.io/tls
stringData: {tls.crt: CRT, tls.key: KEY}
---
apiVersion: v1
kind: Secret
metadata: {name: theirs, namespace: team-b}
type: kubernetes.io/tls
stringData: {tls.crt: CRT, tls.key: KEY}
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: gateways, namespace: certs}
spec:
  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: team-a}]
  to: [{group: "", kind: Secret}]
`
	quoted := func(pem []byte) string { q, _ := json.Marshal(string(pem)); return string(q) }
	input = strings.NewReplacer("CRT", quoted(crt), "KEY", quoted(key)).Replace(input)
	if err := set.Add([]byte(input)); err != nil {
		t.Fatal(err)
	}
	rendered, err := set.Render("gatewright-system", "")
	if err != nil {
		t.Fatal(err)
	}
	data := rendered[0].Objects[0].Object["data"].(map[string]any)
	var got []struct {
		Name            string
		Valid           bool
		Reason          string
		CertificateRefs []struct{ Namespace, Name, Reason string }
	}
	if err := json.Unmarshal([]byte(data["listeners"].(string)), &got); err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, l := range got {
		line := fmt.Sprintf("%s valid=%v %s", l.Name, l.Valid, l.Reason)
		for _, c := range l.CertificateRefs {
			line += fmt.Sprintf(" %s/%s=%s", c.Namespace, c.Name, c.Reason)
		}
		summary = append(summary, line)
	}
	want := []string{
		"shop valid=true ResolvedRefs team-a/shop-tls=ResolvedRefs",
		"missing valid=false InvalidCertificateRef team-a/gone=InvalidCertificateRef",
		"shared valid=true ResolvedRefs certs/shared-tls=ResolvedRefs",
		"foreign valid=false RefNotPermitted team-b/theirs=RefNotPermitted",
	}
	if !slices.Equal(summary, want) {
		t.Errorf(".Listeners:\ngot  %q\nwant %q", summary, want)
	}
	for _, secretData := range [][]byte{crt, key} {
		block := strings.Split(strings.TrimSpace(string(secretData)), "\n")[1]
		if strings.Contains(fmt.Sprint(data), block) {
			t.Error("the rendered object holds Secret data")
		}
	}
}
