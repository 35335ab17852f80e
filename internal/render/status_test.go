package render_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routing"
)

// A blueprint whose objects cannot read what they created: its status reads the
// Service's clusterIP, as the sizing benchmark's does.
const serviceAddressBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: "{{ .Gateway.metadata.name }}-config"}
  - name: proxy
    template: |
      apiVersion: v1
      kind: Service
      metadata: {name: "{{ .Gateway.metadata.name }}-proxy"}
      spec: {ports: [{port: 80}]}
  status:
    template: |
      addresses:
      {{- range .Resources.proxy }}
      - {type: IPAddress, value: {{ .spec.clusterIP | quote }}}
      {{- end }}
`

// GatewayStatus must give what rendering every template again gives, for a blueprint
// whose objects cannot change; ObjectsMayChange must say when they can.
func TestGatewayStatus(t *testing.T) {
	parsed, err := render.Parse(blueprint(t, serviceAddressBlueprint))
	if err != nil {
		t.Fatal(err)
	}
	in := testInput(nil)
	in.IsReady = alwaysReady
	first, err := parsed.Gateway(in)
	if err != nil {
		t.Fatal(err)
	}
	if first.StatusRendered || parsed.ObjectsMayChange(first) {
		t.Fatalf("before the apply: status rendered %v, objects may change %v", first.StatusRendered, parsed.ObjectsMayChange(first))
	}

	in.Live = map[string][]*unstructured.Unstructured{}
	for _, obj := range first.Objects {
		applied := obj.DeepCopy()
		if applied.GetKind() == "Service" {
			_ = unstructured.SetNestedField(applied.Object, "10.96.0.7", "spec", "clusterIP")
		}
		template := applied.GetLabels()["gatewright.dev/template"]
		in.Live[template] = append(in.Live[template], applied)
	}
	statusOnly, err := parsed.GatewayStatus(in, first)
	if err != nil {
		t.Fatal(err)
	}
	full, err := parsed.Gateway(in)
	if err != nil {
		t.Fatal(err)
	}
	if !statusOnly.StatusRendered || len(statusOnly.Addresses) != 1 || statusOnly.Addresses[0].Value != "10.96.0.7" {
		t.Errorf("the status alone did not report the Service's address: %+v", statusOnly)
	}
	if diff := cmp.Diff(full.Addresses, statusOnly.Addresses); diff != "" || full.StatusRendered != statusOnly.StatusRendered {
		t.Errorf("the status alone differs from a full render (-full +status only):\n%s", diff)
	}
	if diff := cmp.Diff(names(full.Objects), names(statusOnly.Objects)); diff != "" {
		t.Errorf("objects (-full +status only):\n%s", diff)
	}

	delete(in.Live, "proxy")
	if waiting, err := parsed.GatewayStatus(in, first); err != nil || waiting.StatusRendered {
		t.Errorf("a status rendered while the Service is not there: %+v, %v", waiting, err)
	}
}

func TestObjectsMayChange(t *testing.T) {
	withHelpers := func(bp *gatewrightv1alpha1.GatewayClassBlueprint, helpers string) *gatewrightv1alpha1.GatewayClassBlueprint {
		bp.Spec.Helpers = helpers
		return bp
	}
	for _, tt := range []struct {
		name string
		bp   *gatewrightv1alpha1.GatewayClassBlueprint
		want bool
	}{
		{name: "objects from values only", bp: blueprint(t, serviceAddressBlueprint)},
		{name: "a value whose name holds tpl", bp: gatewayTemplates(t, configMap+"data: {port: \"{{ .Values.httplistener }}\"}\n")},
		{name: "a template that reads .Resources", want: true, bp: gatewayTemplates(t, configMap+"data: {seen: \"{{ len .Resources.first }}\"}\n")},
		{name: "a template that runs tpl", want: true, bp: gatewayTemplates(t, configMap+"data: {text: {{ tpl \"x\" . | quote }}}\n")},
		{name: "a helper that reads .Resources", want: true, bp: withHelpers(gatewayTemplates(t, configMap), `{{ define "ids" }}{{ .Resources }}{{ end }}`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parsed, err := render.Parse(tt.bp)
			if err != nil {
				t.Fatal(err)
			}
			if got := parsed.ObjectsMayChange(&render.Output{}); got != tt.want {
				t.Errorf("ObjectsMayChange = %v, want %v", got, tt.want)
			}
		})
	}
	parsed, err := render.Parse(blueprint(t, serviceAddressBlueprint))
	if err != nil {
		t.Fatal(err)
	}
	if !parsed.ObjectsMayChange(&render.Output{Waiting: []render.Waiting{{Template: "proxy", For: "config"}}}) {
		t.Error("a render in which a template waited: its objects may change once the dependency is ready")
	}
}

// The routes and the route table are built for each render that may read them: a status
// template reads them though no gateway template does, and the other way round.
func TestStatusAndGatewayTemplatesEachSeeTheRoutesTheyRead(t *testing.T) {
	const routesInStatus = `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: config}
      data: {routes: "{{ len .HTTPRoutes }}", table: "{{ len .RouteTable.routes }}"}
  status:
    template: |
      addresses:
      - {type: Hostname, value: "routes-{{ len .HTTPRoutes }}-table-{{ len .RouteTable.routes }}"}
`
	cases := map[string]struct {
		spec                  string
		wantData, wantAddress string
	}{
		"both read them": {routesInStatus, "2/2", "routes-2-table-2"},
		"only the status reads them": {
			strings.Replace(routesInStatus, `data: {routes: "{{ len .HTTPRoutes }}", table: "{{ len .RouteTable.routes }}"}`, `data: {routes: "none"}`, 1),
			"none/", "routes-2-table-2"},
		"only the gateway templates read them": {
			strings.Replace(routesInStatus, `"routes-{{ len .HTTPRoutes }}-table-{{ len .RouteTable.routes }}"`, `"fixed"`, 1),
			"2/2", "fixed"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			parsed, err := render.Parse(blueprint(t, tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			in := testInput(nil)
			in.IsReady = alwaysReady
			in.HTTPRoutes = []*gatewayv1.HTTPRoute{{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "one"}}, {ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "two"}}}
			in.RouteTable = &routing.Table{Listeners: []routing.Listener{}, Routes: []routing.RouteVerdict{{ObjectRef: routing.ObjectRef{Name: "one"}}, {ObjectRef: routing.ObjectRef{Name: "two"}}}}
			out, err := parsed.Gateway(in)
			if err != nil {
				t.Fatal(err)
			}
			in.Live = map[string][]*unstructured.Unstructured{"config": out.Objects}
			status, err := parsed.GatewayStatus(in, out)
			if err != nil {
				t.Fatal(err)
			}
			data, _, _ := unstructured.NestedStringMap(out.Objects[0].Object, "data")
			if got := data["routes"] + "/" + data["table"]; got != tc.wantData {
				t.Errorf("gateway template saw %q, want %q", got, tc.wantData)
			}
			if len(status.Addresses) != 1 || status.Addresses[0].Value != tc.wantAddress {
				t.Errorf("status %+v, want the address %q", status.Addresses, tc.wantAddress)
			}
		})
	}
}
