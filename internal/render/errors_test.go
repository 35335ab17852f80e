package render_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/render"
)

const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name     string
		template string
		values   map[string]any
		want     render.Error
	}{
		{
			name:     "a template that does not parse names the template and line",
			template: configMap + "data:\n  a: {{ .Values.a }\n",
			want:     render.Error{Template: "gateway/first", Line: 6, Message: `unexpected "}" in operand`},
		},
		{
			name:     "env is not available to templates",
			template: configMap + "data:\n  home: {{ env \"HOME\" }}\n",
			want:     render.Error{Template: "gateway/first", Line: 6, Message: `function "env" not defined`},
		},
		{
			name:     "expandenv is not available to templates",
			template: configMap + "data:\n  home: {{ expandenv \"$HOME\" }}\n",
			want:     render.Error{Template: "gateway/first", Line: 6, Message: `function "expandenv" not defined`},
		},
		{
			name:     "getHostByName is not available to templates",
			template: "{{ getHostByName \"example.com\" }}",
			want:     render.Error{Template: "gateway/first", Line: 1, Message: `function "getHostByName" not defined`},
		},
		{
			name:     "lookup of cluster objects is not available to templates",
			template: "{{ lookup \"v1\" \"Secret\" \"kube-system\" \"x\" }}",
			want:     render.Error{Template: "gateway/first", Line: 1, Message: `function "lookup" not defined`},
		},
		{
			name:     "the clock is not available: renders must repeat",
			template: "{{ now }}",
			want:     render.Error{Template: "gateway/first", Line: 1, Message: `function "now" not defined`},
		},
		{
			name:     "randomness is not available: renders must repeat",
			template: "{{ randAlphaNum 8 }}",
			want:     render.Error{Template: "gateway/first", Line: 1, Message: `function "randAlphaNum" not defined`},
		},
		{
			name:     "required gives the author's message, with template and line",
			template: configMap + "data:\n  host: {{ required \"hostname is required\" .Values.hostname }}\n",
			want:     render.Error{Template: "gateway/first", Line: 6, Message: "hostname is required"},
		},
		{
			name:     "fail gives the author's message",
			template: "{{ if gt (int .Values.replicas) 10 }}{{ fail \"at most 10 replicas\" }}{{ end }}",
			values:   map[string]any{"replicas": int64(11)},
			want:     render.Error{Template: "gateway/first", Line: 1, Message: "at most 10 replicas"},
		},
		{
			name:     "an execution error names the template and line",
			template: configMap + "data:\n  a: {{ .Values.a.b.c }}\n",
			want:     render.Error{Template: "gateway/first", Line: 6, Message: "nil pointer evaluating interface {}.b"},
		},
		{
			name:     "output that is not YAML names the template, and keeps the output for the author",
			template: configMap + "data:\n  a: [unclosed\n",
			want: render.Error{Template: "gateway/first", Message: "the rendered output is not valid YAML: document 1: yaml: line 6: did not find expected ',' or ']'",
				Output: configMap + "data:\n  a: [unclosed\n", OutputLine: 6},
		},
		{
			name:     "a document that is not an object is refused",
			template: "- a\n- b\n",
			want:     render.Error{Template: "gateway/first", Message: "the rendered output is not valid YAML: document 1: a document must be an object, not a list", Output: "- a\n- b\n"},
		},
		{
			name:     "an object without a name is refused",
			template: "apiVersion: v1\nkind: ConfigMap\ndata: {}\n",
			want:     render.Error{Template: "gateway/first", Message: `ConfigMap "": metadata.name is required`, Output: "apiVersion: v1\nkind: ConfigMap\ndata: {}\n"},
		},
		{
			name:     "a namespaced object in another namespace is refused",
			template: configMap + "  namespace: kube-system\n",
			want: render.Error{Template: "gateway/first", Message: `ConfigMap "cm": must be in namespace team-a, not kube-system: objects stay in the namespace of their Gateway or HTTPRoute`,
				Output: configMap + "  namespace: kube-system\n"},
		},
		{
			name:     "a label value the API server would refuse is refused with its key",
			template: configMap + "  labels: {team: " + strings.Repeat("a", 64) + "}\n",
			want: render.Error{Template: "gateway/first", Message: `ConfigMap "cm": label team="` + strings.Repeat("a", 64) + `": must be no more than 63 bytes`,
				Output: configMap + "  labels: {team: " + strings.Repeat("a", 64) + "}\n"},
		},
		{
			name:     "a cluster-scoped kind the blueprint does not allow is refused",
			template: "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: admin}\n",
			want: render.Error{Template: "gateway/first", Message: `ClusterRole "admin": ClusterRole.rbac.authorization.k8s.io is cluster-scoped and not in the blueprint's clusterScopedKinds`,
				Output: "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: admin}\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := renderGateway(t, gatewayTemplates(t, tt.template), tt.values)
			var got *render.Error
			if !errors.As(err, &got) {
				t.Fatalf("got %v (%T), output %v; want a render.Error", err, err, out)
			}
			if out != nil {
				t.Errorf("a failed render returned objects: %v", out.Objects)
			}
			tt.want.Blueprint = "bp"
			if *got != tt.want {
				t.Errorf("got  %#v\nwant %#v", *got, tt.want)
			}
		})
	}
}

func TestErrorMessageNamesBlueprintTemplateAndLine(t *testing.T) {
	err := &render.Error{Blueprint: "envoy", Template: "gateway/service", Line: 12, Message: "hostname is required"}
	if got, want := err.Error(), "GatewayClassBlueprint envoy, template gateway/service, line 12: hostname is required"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestHelperErrorsNameTheHelpersAndTheCaller(t *testing.T) {
	bp := gatewayTemplates(t, configMap+"data:\n  a: {{ include \"broken\" . }}\n")
	bp.Spec.Helpers = "{{ define \"broken\" }}\n{{ .Values.x.y }}\n{{ end }}"
	_, err := renderGateway(t, bp, nil)
	var got *render.Error
	if !errors.As(err, &got) {
		t.Fatalf("got %v", err)
	}
	if got.Template != "gateway/first" || got.Line != 6 {
		t.Errorf("error placed at %s line %d, want the include in gateway/first line 6", got.Template, got.Line)
	}
	if want := `include: template: helpers:2:10: executing "broken" at <.Values.x.y>: nil pointer evaluating interface {}.y`; got.Message != want {
		t.Errorf("message %q, want %q", got.Message, want)
	}
}

func TestAFailedTemplateDiscardsTheWholeRender(t *testing.T) {
	out, err := renderGateway(t, gatewayTemplates(t, configMap, "{{ fail \"no\" }}"), nil)
	if err == nil || out != nil {
		t.Fatalf("got %v objects and error %v; want no objects at all", out, err)
	}
}
