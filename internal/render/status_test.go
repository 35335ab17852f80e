package render_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatewright/gatewright/internal/render"
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
	in.IsReady = func(*unstructured.Unstructured) bool { return true }
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
	for _, tt := range []struct {
		name, spec string
		want       bool
	}{
		{name: "objects from values only", spec: serviceAddressBlueprint},
		{name: "a template that reads .Resources", want: true, spec: `
gatewayTemplate:
  resourceTemplates:
  - name: first
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: cm}
      data: {seen: "{{ len .Resources.first }}"}
`},
		{name: "a template that runs tpl", want: true, spec: `
gatewayTemplate:
  resourceTemplates:
  - name: first
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: cm}
      data: {text: {{ tpl "x" . | quote }}}
`},
		{name: "a helper that reads .Resources", want: true, spec: `
helpers: '{{ define "ids" }}{{ .Resources }}{{ end }}'
gatewayTemplate:
  resourceTemplates:
  - name: first
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: cm}
`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parsed, err := render.Parse(blueprint(t, tt.spec))
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
