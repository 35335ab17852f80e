package render_test

import (
	"fmt"
	"testing"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
)

// tenTemplates is a blueprint of ten templates of the usual shape: helpers, include,
// toYaml of values, a range over listeners, one object each.
func tenTemplates(b *testing.B) *gatewrightv1alpha1.GatewayClassBlueprint {
	bp := blueprint(b, `
helpers: |
  {{- define "name" -}}{{ .Gateway.metadata.name }}-proxy{{- end -}}
  {{- define "selector" -}}
  app.kubernetes.io/name: proxy
  app.kubernetes.io/instance: {{ include "name" . }}
  {{- end -}}
gatewayTemplate: {}
`)
	for i := range 10 {
		bp.Spec.GatewayTemplate.ResourceTemplates = append(bp.Spec.GatewayTemplate.ResourceTemplates, gatewrightv1alpha1.ResourceTemplate{
			Name: fmt.Sprintf("t%d", i),
			Template: fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "name" . }}-%d
  labels:
    {{- include "selector" . | nindent 4 }}
    {{- with .Values.labels }}{{ toYaml . | nindent 4 }}{{ end }}
data:
  replicas: {{ .Values.replicas | quote }}
  image: {{ .Values.image | quote }}
  {{- range .Gateway.spec.listeners }}
  listener-{{ .name }}: {{ .port | quote }}
  {{- end }}
  {{- range $k, $v := .Values.extra }}
  {{ $k }}: {{ $v | quote }}
  {{- end }}
`, i),
		})
	}
	return bp
}

var benchValues = map[string]any{
	"replicas": int64(3), "image": "envoyproxy/envoy:v1.36.2",
	"labels": map[string]any{"team": "a", "tier": "gold"},
	"extra":  map[string]any{"a": "1", "b": "2", "c": "3"},
}

// BenchmarkRenderCold parses the blueprint and renders it: the first Gateway after a
// blueprint changes.
func BenchmarkRenderCold(b *testing.B) {
	bp := tenTemplates(b)
	b.ReportAllocs()
	for b.Loop() {
		parsed, err := render.Parse(bp)
		if err != nil {
			b.Fatal(err)
		}
		if out, err := parsed.Gateway(testInput(benchValues)); err != nil || len(out.Objects) != 10 {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderWarm renders an already parsed blueprint: every other Gateway.
func BenchmarkRenderWarm(b *testing.B) {
	parsed, err := render.Parse(tenTemplates(b))
	if err != nil {
		b.Fatal(err)
	}
	in := testInput(benchValues)
	b.ReportAllocs()
	for b.Loop() {
		if out, err := parsed.Gateway(in); err != nil || len(out.Objects) != 10 {
			b.Fatal(err)
		}
	}
}
