package render_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
)

// kindTemplates has a template named "route" for HTTPRoutes, GRPCRoutes and TLSRoutes,
// each saying which set it is and reading the route as .Route and under its kind's key.
const kindTemplates = `
gatewayTemplate: {}
httpRouteTemplate:
  resourceTemplates:
  - name: route
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: "http-{{ .HTTPRoute.metadata.name }}"}
      data: {route: "{{ .Route.metadata.name }}"}
grpcRouteTemplate:
  resourceTemplates:
  - name: route
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: "grpc-{{ .GRPCRoute.metadata.name }}"}
      data: {route: "{{ .Route.metadata.name }}", http: "{{ .HTTPRoute }}"}
tlsRouteTemplate:
  resourceTemplates:
  - name: route
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: "tls-{{ .TLSRoute.metadata.name }}"}
      data: {route: "{{ .Route.metadata.name }}", hostname: "{{ index .TLSRoute.spec.hostnames 0 }}"}
`

func TestARouteRendersTheTemplatesOfItsKind(t *testing.T) {
	parsed, err := render.Parse(blueprint(t, kindTemplates))
	if err != nil {
		t.Fatal(err)
	}
	meta := metav1.ObjectMeta{Name: "shop", Namespace: "team-a"}
	tests := []struct {
		name     string
		route    routes.Route
		want     string            // the name of the one object rendered, "" for none
		data     map[string]string // what it says
		kindMark string            // its gatewright.dev/route-kind label
	}{
		{name: "an HTTPRoute sees itself as .Route and .HTTPRoute, and its objects have no route-kind label",
			route: &gatewayv1.HTTPRoute{ObjectMeta: meta}, want: "http-shop", data: map[string]string{"route": "shop"}},
		{name: "a GRPCRoute of the same name renders the GRPCRoute templates, and sees no .HTTPRoute",
			route: &gatewayv1.GRPCRoute{ObjectMeta: meta}, want: "grpc-shop", data: map[string]string{"route": "shop", "http": ""}, kindMark: "GRPCRoute"},
		{name: "a TLSRoute reads its own kind's fields under .TLSRoute",
			route: &gatewayv1.TLSRoute{ObjectMeta: meta, Spec: gatewayv1.TLSRouteSpec{Hostnames: []gatewayv1.Hostname{"shop.example"}}},
			want:  "tls-shop", data: map[string]string{"route": "shop", "hostname": "shop.example"}, kindMark: "TLSRoute"},
		{name: "a TCPRoute, of a kind without route templates, renders nothing",
			route: &gatewayv1.TCPRoute{ObjectMeta: meta}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := parsed.Route(testInput(nil), tt.route)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if len(out.Objects) != 0 {
					t.Fatalf("rendered %d objects, want none", len(out.Objects))
				}
				return
			}
			if len(out.Objects) != 1 || out.Objects[0].GetName() != tt.want {
				t.Fatalf("rendered %v, want one object %s", out.Objects, tt.want)
			}
			obj := out.Objects[0]
			data, _ := obj.Object["data"].(map[string]any)
			for k, v := range tt.data {
				if data[k] != v {
					t.Errorf("data.%s = %v, want %q", k, data[k], v)
				}
			}
			labels := obj.GetLabels()
			if labels["gatewright.dev/route-kind"] != tt.kindMark || labels["gatewright.dev/httproute-name"] != "shop" {
				t.Errorf("labels %v, want route-kind %q and the route's name", labels, tt.kindMark)
			}
		})
	}
}

// Every kind's route templates are checked as the httpRouteTemplate's are: a blueprint
// with a broken one is not usable, and the error names the kind's set.
func TestEveryKindsRouteTemplatesAreValidated(t *testing.T) {
	tests := []struct {
		name, set, template, dependsOn, want string
	}{
		{name: "a GRPCRoute template that does not parse", set: "grpcRouteTemplate", template: "{{ .Route ",
			want: "template grpcroute/route"},
		{name: "a TCPRoute template that depends on a template it does not have", set: "tcpRouteTemplate", template: "{}", dependsOn: "[missing]",
			want: `template tcproute/route: dependsOn names "missing", which is not a template of tcproute`},
		{name: "a UDPRoute template's readyWhen that does not compile", set: "udpRouteTemplate", template: "{}",
			want: "template udproute/route: readyWhen does not compile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := "gatewayTemplate: {}\n" + tt.set + ":\n  resourceTemplates:\n  - name: route\n    template: " + quote(tt.template) + "\n"
			if tt.dependsOn != "" {
				spec += "    dependsOn: " + tt.dependsOn + "\n"
			}
			if strings.HasPrefix(tt.set, "udp") {
				spec += "    readyWhen: \"self.(\"\n"
			}
			err := render.Validate(blueprint(t, spec))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// Whether a route's objects are read whole, and may change with the live objects, is
// the question of its own kind's templates: one kind's reading .Resources does not make
// the cache hold another kind's objects whole.
func TestLiveReadsAreJudgedPerRouteKind(t *testing.T) {
	parsed, err := render.Parse(blueprint(t, `
gatewayTemplate: {}
httpRouteTemplate:
  resourceTemplates:
  - {name: route, template: "{}"}
grpcRouteTemplate:
  resourceTemplates:
  - {name: route, template: "{{ len .Resources.route }}"}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := &render.Output{}
	for kind, reads := range map[string]bool{routes.KindHTTPRoute: false, routes.KindGRPCRoute: true, routes.KindTCPRoute: false} {
		if got := parsed.ReadsWhole(kind)("route"); got != reads {
			t.Errorf("%s: ReadsWhole %v, want %v", kind, got, reads)
		}
		if got := parsed.RouteObjectsMayChange(kind, out); got != reads {
			t.Errorf("%s: RouteObjectsMayChange %v, want %v", kind, got, reads)
		}
	}
}
