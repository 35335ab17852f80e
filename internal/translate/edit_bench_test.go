package translate_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/scheme"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// editBlueprint renders one ConfigMap holding a line per route match of the route
// table, as the routes shape of test/bench does.
const editBlueprint = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: edit}
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
`

// BenchmarkRouteEditOf5000Routes is what the controller computes for the edit of one
// route's path on a Gateway of 5,000 routes from 10 namespaces, each with a backend
// Service of its namespace: the routes attached and their backends resolved, the route
// table, the values and the templates, with the memos the controller keeps per Gateway.
// The routes are handed in as the controller's index lists them.
func BenchmarkRouteEditOf5000Routes(b *testing.B) {
	ctx := context.Background()
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
	if err := yaml.Unmarshal([]byte(editBlueprint), bp); err != nil {
		b.Fatal(err)
	}
	class := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "edit"}, Spec: gatewayv1.GatewayClassSpec{
		ControllerName: "gatewright.dev/gateway-controller",
		ParametersRef:  &gatewayv1.ParametersReference{Group: gatewayv1.Group(gatewrightv1alpha1.GroupVersion.Group), Kind: "GatewayClassBlueprint", Name: "edit"},
	}}
	all := gatewayv1.NamespacesFromAll
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-0", Name: "gw"}, Spec: gatewayv1.GatewaySpec{
		GatewayClassName: "edit",
		Listeners: []gatewayv1.Listener{{Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80,
			AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &all}}}},
	}}
	objs := []runtime.Object{bp, class, gw}
	for n := range 10 {
		namespace := fmt.Sprintf("tenant-%d", n)
		objs = append(objs,
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "echo"}})
	}
	reader := fake.NewClientBuilder().WithScheme(scheme.New()).WithRuntimeObjects(objs...).Build()
	route := func(i, edit int) *gatewayv1.HTTPRoute {
		path := fmt.Sprintf("/route-%d", i)
		if edit > 0 {
			path += fmt.Sprintf("/edited-%d", edit)
		}
		return &gatewayv1.HTTPRoute{
			ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("tenant-%d", i%10), Name: fmt.Sprintf("route-%d", i), UID: types.UID(fmt.Sprintf("uid-%d", i)), Generation: int64(edit + 1)},
			Spec: gatewayv1.HTTPRouteSpec{
				CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{
					Namespace: ptr.To(gatewayv1.Namespace("tenant-0")), Name: "gw", SectionName: ptr.To(gatewayv1.SectionName("http")),
				}}},
				Rules: []gatewayv1.HTTPRouteRule{{
					Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: ptr.To(gatewayv1.PathMatchPathPrefix), Value: ptr.To(path)}}},
					BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
						Name: "echo", Port: ptr.To(gatewayv1.PortNumber(8080)),
					}}}},
				}},
			},
		}
	}
	candidates := make([]*gatewayv1.HTTPRoute, 5000)
	for i := range candidates {
		candidates[i] = route(i, 0)
	}
	parser := &render.Cache{}
	attachMemo, backendMemo, memo := snapshot.NewAttachMemo(), snapshot.NewBackendMemo(), translate.NewMemo()
	edit := func(n int) {
		candidates[0] = route(0, n)
		g := &snapshot.Gatherer{Reader: reader, ControllerNamespace: "gatewright-system",
			ServiceExists: func(namespace, name string) (bool, error) {
				err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &corev1.Service{})
				return err == nil, client.IgnoreNotFound(err)
			},
			AttachMemos:  func(*gatewayv1.Gateway) *snapshot.AttachMemo { return attachMemo },
			BackendMemos: func(*gatewayv1.Gateway) *snapshot.BackendMemo { return backendMemo },
		}
		serves, err := g.Serves(ctx, gw, class)
		if err != nil {
			b.Fatal(err)
		}
		judged, err := g.Listeners(ctx, gw, serves)
		if err != nil {
			b.Fatal(err)
		}
		snap, err := g.Gateway(ctx, gw, class, snapshot.Among(candidates), snapshot.Judged(judged))
		if err != nil {
			b.Fatal(err)
		}
		snap.Memo = memo
		res := snap.Translate(parser, translate.Live{})
		if res.Err != nil {
			b.Fatal(res.Err)
		}
		if got := len(res.Table.Routes); got != 5000 {
			b.Fatalf("%d routes in the table, want 5000", got)
		}
	}
	edit(0)
	b.ReportAllocs()
	b.ResetTimer()
	for n := range b.N {
		edit(n + 1)
	}
}
