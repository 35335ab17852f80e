package render_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/values"
)

func TestUnusedValues(t *testing.T) {
	tests := []struct {
		name     string
		template string
		helpers  string
		schema   string
		set      []string
		want     []string
	}{
		{
			name:     "a typo of a key the template reads is unused, with the key suggested",
			template: `replicas: {{ .Values.replicas | int }}`,
			set:      []string{"replica", "replicas"},
			want:     []string{"replica (did you mean replicas?)"},
		},
		{
			name:     "a key far from every known path is unused without a suggestion",
			template: `replicas: {{ .Values.replicas | int }}`,
			set:      []string{"colour"},
			want:     []string{"colour"},
		},
		{
			name:     "a path printed whole is read with everything below it",
			template: `labels: {{ toYaml .Values.labels | nindent 2 }}`,
			set:      []string{"labels.app", `labels["app.kubernetes.io/name"]`},
		},
		{
			name:     "a path that is ranged over is read with everything below it",
			template: `{{ range .Values.hosts }}- {{ .name | quote }}{{ end }}`,
			set:      []string{"hosts.a.name", "hosts.b.port"},
		},
		{
			name:     "a path bound to a variable is read with everything below it",
			template: `{{ $svc := .Values.service }}type: {{ $svc.type | quote }}`,
			set:      []string{"service.typo"},
		},
		{
			name:     "a path in an if is read, not what lies below it",
			template: `{{ if .Values.tls }}tls: true{{ end }}`,
			set:      []string{"tls.mode"},
			want:     []string{"tls.mode"},
		},
		{
			name:     "the keys a with reads are read, not their siblings",
			template: `{{ with .Values.service }}type: {{ .type | quote }}{{ end }}`,
			set:      []string{"service.type", "service.tpye"},
			want:     []string{"service.tpye (did you mean service.type?)"},
		},
		{
			name:     "$.Values inside a range reads from the root",
			template: `{{ range .Gateway.spec.listeners }}port: {{ $.Values.port | int }}{{ end }}`,
			set:      []string{"port", "prot"},
			want:     []string{"prot (did you mean port?)"},
		},
		{
			name:     "index with quoted keys reads that path",
			template: `name: {{ index .Values "names" "first" | quote }}`,
			set:      []string{"names.first", "names.second"},
			want:     []string{"names.second"},
		},
		{
			name:     "index with a key that is not quoted reads everything below the quoted part",
			template: `{{ $k := "x" }}name: {{ index .Values "names" $k | quote }}`,
			set:      []string{"names.second"},
		},
		{
			name:     "a define that include runs is read too",
			helpers:  `{{ define "owner" }}{{ .Values.owner | quote }}{{ end }}`,
			template: `owner: {{ include "owner" . }}`,
			set:      []string{"owner", "ownr"},
			want:     []string{"ownr (did you mean owner?)"},
		},
		{
			name:     "a define that template runs with the data is read on its own",
			helpers:  `{{ define "owner" }}{{ .Values.owner | quote }}{{ end }}`,
			template: `owner: {{ template "owner" . }}`,
			set:      []string{"owner", "ownr"},
			want:     []string{"ownr (did you mean owner?)"},
		},
		{
			name:     "the data bound to a variable may be read whole, so nothing is unused",
			template: `{{ $root := . }}x: {{ $root.Values.owner | quote }}`,
			set:      []string{"ownr"},
		},
		{
			name:     "a value the template reads by a parent path is read",
			template: `{{ .Values.a.b.c | quote }}`,
			set:      []string{"a"},
		},
		{
			name:     "toYaml .Values reads everything, so nothing is unused",
			template: `values: {{ toYaml .Values | nindent 2 }}`,
			set:      []string{"replica"},
		},
		{
			name:     "tpl with the template's data may read everything, so nothing is unused",
			template: `x: {{ tpl "{{ .Values.anything }}" . | quote }}`,
			set:      []string{"replica"},
		},
		{
			name:     "a key the valuesSchema declares is known though no template reads it",
			template: `replicas: {{ .Values.replicas | int }}`,
			schema:   `{type: object, properties: {replicas: {type: integer}, debug: {type: boolean}}}`,
			set:      []string{"debug", "debgu"},
			want:     []string{"debgu (did you mean debug?)"},
		},
		{
			name:     "keys of a map the valuesSchema declares are known",
			template: `x: 1`,
			schema:   `{type: object, properties: {labels: {type: object, additionalProperties: {type: string}}}}`,
			set:      []string{"labels.team", "lables.team"},
			want:     []string{"lables.team (did you mean labels.team?)"},
		},
		{
			name:     "a valuesSchema that lists no properties declares everything",
			template: `x: 1`,
			schema:   `{type: object}`,
			set:      []string{"anything"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := "helpers: '" + tt.helpers + "'\ngatewayTemplate:\n  resourceTemplates:\n  - name: first\n    template: '" + tt.template + "'\n"
			if tt.schema != "" {
				spec += "valuesSchema: " + tt.schema + "\n"
			}
			parsed, err := render.Parse(blueprint(t, spec))
			if err != nil {
				t.Fatal(err)
			}
			res := &values.Result{}
			for _, path := range tt.set {
				res.Provenance = append(res.Provenance, values.Leaf{Path: path, Value: 1})
			}
			var got []string
			for _, u := range parsed.UnusedValues(res) {
				got = append(got, u.Note())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("unused (-want +got):\n%s", diff)
			}
		})
	}
}
