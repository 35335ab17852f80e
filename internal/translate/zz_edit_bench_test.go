package translate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

func editCase(b *testing.B, n int) *testCase {
	var sb strings.Builder
	sb.WriteString(`gateway: tenant-0/gw-0
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: bench}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: routes}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: routes}
spec:
  gatewayTemplate:
    resourceTemplates:
    - name: routes
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .Gateway.metadata.name }}-routes}
        data:
          routes: |
            {{- range $l := .RouteTable.listeners }}{{ range $l.hosts }}{{ range .matches }}
            {{ .route.namespace }}/{{ .route.name }} {{ .path.value }}
            {{- end }}{{ end }}{{ end }}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-0, namespace: tenant-0}
spec:
  gatewayClassName: bench
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
`)
	for ns := 0; ns < 10; ns++ {
		fmt.Fprintf(&sb, "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: tenant-%d}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: echo, namespace: tenant-%d}\nspec: {ports: [{name: http, port: 8080}]}\n", ns, ns)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: route-%d, namespace: tenant-%d, uid: u%d, generation: 1}\nspec:\n  parentRefs: [{name: gw-0, namespace: tenant-0, sectionName: http}]\n  rules: [{matches: [{path: {type: PathPrefix, value: /tenant-%d/route-%d}}], backendRefs: [{name: echo, port: 8080}]}]\n", i, i%10, i, i%10, i)
	}
	path := filepath.Join(b.TempDir(), "edit.in.yaml")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return loadCase(&testing.T{}, path)
}

func BenchmarkRouteEdit(b *testing.B) {
	c := editCase(b, 5000)
	ctx := context.Background()
	gw := &gatewayv1.Gateway{}
	if err := c.reader.Get(ctx, client.ObjectKey{Namespace: "tenant-0", Name: "gw-0"}, gw); err != nil {
		b.Fatal(err)
	}
	class := &gatewayv1.GatewayClass{}
	if err := c.reader.Get(ctx, client.ObjectKey{Name: "bench"}, class); err != nil {
		b.Fatal(err)
	}
	var all gatewayv1.HTTPRouteList
	if err := c.reader.List(ctx, &all); err != nil {
		b.Fatal(err)
	}
	memo := translate.NewMemo()
	attachMemo := snapshot.NewAttachMemo()
	g := c.gatherer(ctx)
	g.AttachMemos = func(*gatewayv1.Gateway) *snapshot.AttachMemo { return attachMemo }
	run := func(i int) (time0, time1 float64) {
		r := &all.Items[0]
		r.Generation++
		p := fmt.Sprintf("/edited-%d", i)
		r.Spec.Rules[0].Matches[0].Path.Value = &p
		snap, err := g.Gateway(ctx, gw, class, snapshot.Among(all.Items))
		if err != nil {
			b.Fatal(err)
		}
		snap.Memo = memo
		res := snap.Translate(c.blueprints, translate.Live{})
		if res.Err != nil {
			b.Fatal(res.Err)
		}
		if !strings.Contains(res.Output.Objects[0].Object["data"].(map[string]any)["routes"].(string), p) {
			b.Fatal("edit not rendered")
		}
		return
	}
	run(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(i + 1)
	}
}
