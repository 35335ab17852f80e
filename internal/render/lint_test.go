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

func TestLintValuesPathsAgainstTheSchema(t *testing.T) {
	bp := blueprint(t, `
valuesSchema:
  type: object
  properties:
    image: {type: string}
    replicas: {type: integer}
    service:
      type: object
      properties:
        type: {type: string}
        ports: {type: array, items: {type: object, properties: {port: {type: integer}}}}
    labels: {type: object, additionalProperties: {type: string}}
    extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
    anything: {type: object}
    closed: {type: object, additionalProperties: false}
helpers: |
  {{- define "image" -}}
  {{ .Values.imag | quote }}
  {{- end -}}
gatewayTemplate:
  resourceTemplates:
  - name: first
    template: |
      image: {{ .Values.image | quote }}
      typo: {{ .Values.replica | int }}
      root: {{ $.Values.servce.type | quote }}
      nested: {{ .Values.service.typ | quote }}
      labels: {{ .Values.labels.team | quote }}
      open: {{ .Values.extra.a.b | quote }} {{ .Values.anything.a | quote }}
      scalar: {{ .Values.image.tag | quote }}
      closed: {{ .Values.closed.a | quote }}
      unknown: {{ .Values.zzz | quote }}
      index: {{ index .Values "service" "tpye" | quote }}
      {{- with .Values.service }}
      with: {{ .type | quote }} {{ .prots | toJson }}
      {{- end }}
      {{- range .Values.service.ports }}
      range: {{ .port | int }} {{ .prot | int }}
      {{- end }}
      {{- range $k, $v := .Values.labels }}
      label: {{ $v | quote }}
      {{- end }}
`)
	parsed, err := render.Parse(bp)
	if err != nil {
		t.Fatal(err)
	}
	notInSchema := func(path, hint string) string {
		return path + " is not in the valuesSchema, so it is always empty" + hint
	}
	want := []render.Warning{
		{Template: "gateway/first", Line: 2, Message: notInSchema(".Values.replica", "; did you mean .Values.replicas?")},
		{Template: "gateway/first", Line: 3, Message: notInSchema(".Values.servce", "; did you mean .Values.service?")},
		{Template: "gateway/first", Line: 4, Message: notInSchema(".Values.service.typ", "; did you mean .Values.service.type?")},
		{Template: "gateway/first", Line: 7, Message: ".Values.image.tag reads into .Values.image, which the valuesSchema makes a string"},
		{Template: "gateway/first", Line: 8, Message: notInSchema(".Values.closed.a", " (.Values.closed takes no keys)")},
		{Template: "gateway/first", Line: 9, Message: notInSchema(".Values.zzz", " (.Values has anything, closed, extra, image, labels, replicas, service)")},
		{Template: "gateway/first", Line: 10, Message: notInSchema(".Values.service.tpye", "; did you mean .Values.service.type?")},
		{Template: "gateway/first", Line: 12, Message: notInSchema(".Values.service.prots", "; did you mean .Values.service.ports?")},
		{Template: "gateway/first", Line: 15, Message: notInSchema(".Values.service.ports[].prot", "; did you mean .Values.service.ports[].port?")},
		{Template: "helpers", Line: 2, Message: notInSchema(".Values.imag", "; did you mean .Values.image?")},
		{Template: "valuesSchema", Message: openObject(".Values")},
		{Template: "valuesSchema", Message: openObject(".Values.service")},
		{Template: "valuesSchema", Message: openObject(".Values.service.ports[]")},
	}
	if diff := cmp.Diff(want, parsed.Lint()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestLintChecksNoValuesPathsWithoutASchema(t *testing.T) {
	parsed, err := render.Parse(gatewayTemplates(t, "a: {{ .Values.anything | quote }}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := parsed.Lint(); len(got) != 0 {
		t.Errorf("got %v, want no warnings", got)
	}
}

func openObject(path string) string {
	return path + " lists properties but takes any other key, so a tenant's typo there passes and does nothing: add additionalProperties: false"
}

func TestLintOpenSchemaObjects(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string
	}{
		{
			name:   "an object that lists properties and says nothing of other keys is open",
			schema: `{type: object, properties: {replicas: {type: integer}}}`,
			want:   []string{openObject(".Values")},
		},
		{
			name:   "an object closed with additionalProperties false is not",
			schema: `{type: object, additionalProperties: false, properties: {replicas: {type: integer}}}`,
		},
		{
			name:   "a map schema and preserved unknown fields mean to be open",
			schema: `{type: object, additionalProperties: false, properties: {labels: {type: object, additionalProperties: {type: string}}, extra: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {a: {type: string}}}}}`,
		},
		{
			name:   "an object without properties takes any key by design",
			schema: `{type: object}`,
		},
		{
			name:   "objects in items and map values are checked too, by path",
			schema: `{type: object, additionalProperties: false, properties: {ports: {type: array, items: {type: object, properties: {port: {type: integer}}}}, pools: {type: object, additionalProperties: {type: object, properties: {size: {type: integer}}}}}}`,
			want:   []string{openObject(".Values.pools[]"), openObject(".Values.ports[]")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parsed, err := render.Parse(blueprint(t, "gatewayTemplate: {}\nvaluesSchema: "+tt.schema+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range parsed.Lint() {
				got = append(got, w.Message)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLintServes(t *testing.T) {
	tests := []struct {
		name   string
		serves string
		want   []string
	}{
		{"a blueprint without serves has nothing to warn about", ``, nil},
		{"every protocol with a kind it takes, and every kind with its protocol, is clean",
			`serves: {protocols: [HTTP, TLS, TCP], tlsModes: [Passthrough], routeKinds: [GRPCRoute, TLSRoute, TCPRoute], features: [Gateway, GRPCRoute, TLSRoute, TCPRoute]}`, nil},
		{"a protocol whose listeners would take no kind served, left to routeKinds' default",
			`serves: {protocols: [HTTP, TCP]}`,
			[]string{"serves: protocols serves TCP, but routeKinds lists no kind its listeners take ([TCPRoute]): they are accepted and take no routes"}},
		{"a kind no protocol served takes",
			`serves: {routeKinds: [HTTPRoute, UDPRoute]}`,
			[]string{"serves: routeKinds serves UDPRoute, but protocols serves no protocol whose listeners take it"}},
		{"a feature Gateway API does not name",
			`serves: {features: [Gateway, HTTPRoutes]}`,
			[]string{"serves: features lists HTTPRoutes, which Gateway API's features do not name: conformance runs test none of it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parsed, err := render.Parse(blueprint(t, tt.serves+`
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
`))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range parsed.Lint() {
				got = append(got, w.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
