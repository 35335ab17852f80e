package render_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gatewright/gatewright/internal/render"
)

func TestLint(t *testing.T) {
	bp := blueprint(t, `
helpers: |
  {{- define "owner" -}}
  owner: {{ .Values.owner }}
  {{- end -}}
gatewayTemplate:
  resourceTemplates:
  - name: first
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: {{ .Gateway.metadata.name }}
        labels: {{- toYaml .Values.labels | nindent 4 }}
      data:
        quoted: {{ .Values.a | quote }}
        unquoted: {{ .Values.b }}
        root: {{ $.Values.c }}
        defaulted: {{ .Values.d | default "x" }}
        number: {{ .Values.replicas | int }}
        json: {{ toJson .Values.e }}
        {{- range .Values.hosts }}
        host: {{ . }}
        {{- end }}
        {{- with .Values.tier }}
        tier: {{ . | quote }}
        {{- end }}
        {{ include "owner" . }}
        templated: {{ tpl .Values.f . | quote }}
`)
	parsed, err := render.Parse(bp)
	if err != nil {
		t.Fatal(err)
	}
	unquoted := func(what string) string {
		return what + ` is printed into YAML unquoted: a tenant value with a newline or "---" can add keys or objects; pipe it to quote (strings), int (numbers) or toYaml | nindent (structures)`
	}
	want := []render.Warning{
		{Template: "gateway/first", Line: 8, Message: unquoted("{{ .Values.b }}")},
		{Template: "gateway/first", Line: 9, Message: unquoted("{{ $.Values.c }}")},
		{Template: "gateway/first", Line: 10, Message: unquoted(`{{ .Values.d | default "x" }}`)},
		{Template: "gateway/first", Line: 14, Message: unquoted("{{ . }}")},
		{Template: "gateway/first", Line: 20, Message: "tpl runs {{ tpl .Values.f . | quote }} as a template: tenants who set it can call any template function"},
		{Template: "helpers", Line: 2, Message: unquoted("{{ .Values.owner }}")},
	}
	if diff := cmp.Diff(want, parsed.Lint()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
