package render_test

import (
	"testing"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
)

// A blueprint whose templates name the templates whose live objects they read, as
// .Resources.service does, reads only those whole: the others' objects (a routes
// ConfigMap of thousands of lines) stay as the cache holds them. Any other use of
// .Resources may read every template's.
func TestReadsWholeOnlyTheTemplatesNamed(t *testing.T) {
	for _, tt := range []struct {
		name     string
		template string
		status   string
		want     map[string]bool
	}{
		{name: "the status template names service", status: "addresses: {{ range .Resources.service }}[]{{ end }}",
			want: map[string]bool{"service": true, "routes": false}},
		{name: "through the root variable", template: "data: {n: \"{{ len $.Resources.routes }}\"}",
			want: map[string]bool{"service": false, "routes": true}},
		{name: "ranged over whole", status: "{{ range $name, $objs := .Resources }}{{ end }}",
			want: map[string]bool{"service": true, "routes": true}},
		{name: "indexed by name", status: "{{ index .Resources \"service\" }}",
			want: map[string]bool{"service": true, "routes": true}},
		{name: "read with get", status: "{{ get $ \"Resources\" }}",
			want: map[string]bool{"service": true, "routes": true}},
		{name: "through tpl", template: "data: {x: {{ tpl \"{{ .Values.x }}\" . | quote }}}",
			want: map[string]bool{"service": true, "routes": true}},
		{name: "none", want: map[string]bool{"service": false, "routes": false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bp := gatewayTemplates(t, configMap+tt.template+"\n")
			if tt.status != "" {
				bp.Spec.GatewayTemplate.Status = &gatewrightv1alpha1.StatusTemplate{Template: tt.status}
			}
			parsed, err := render.Parse(bp)
			if err != nil {
				t.Fatal(err)
			}
			reads := parsed.ReadsWhole("")
			for template, want := range tt.want {
				if got := reads(template); got != want {
					t.Errorf("ReadsWhole(%q) = %v, want %v", template, got, want)
				}
			}
		})
	}
}
