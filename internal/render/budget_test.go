package render_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatewright/gatewright/internal/render"
)

const (
	exceededOperations = "render exceeded its budget of 1000000 operations (loops over until/seq/ranges nested too deep?)"
	nestedTooDeep      = "templates nested more than 1000 deep (a template, include or tpl that calls itself?)"
)

// A render stops itself, whatever keeps it running: loops over tenant numbers or lists,
// loops that write nothing, recursion. The error names the template and the line where
// the render was stopped.
func TestRenderStopsWithinItsBudget(t *testing.T) {
	tests := []struct {
		name     string
		template string
		helpers  string
		values   map[string]any
		want     string
	}{
		{name: "nested until over tenant numbers",
			template: "{{ range until (int .Values.a) }}{{ range until (int $.Values.b) }}x{{ end }}{{ end }}",
			values:   map[string]any{"a": 10000, "b": 10000},
			want:     "template gateway/first, line 6: " + exceededOperations},
		{name: "range over a large int",
			template: "{{ range $i := 100000000 }}{{ end }}",
			want:     "template gateway/first, line 6: " + exceededOperations},
		{name: "nested ranges over a list, with an empty body",
			template: "{{ range .Values.list }}{{ range $.Values.list }}{{ end }}{{ end }}",
			values:   map[string]any{"list": make([]any, 1001)},
			want:     "template gateway/first, line 6: " + exceededOperations},
		{name: "include calling itself in a loop",
			template: `{{ include "loop" . }}`,
			helpers:  `{{ define "loop" }}{{ range until 10000 }}{{ include "loop" . }}{{ end }}{{ end }}`,
			want:     "template gateway/first, line 6: " + exceededOperations},
		{name: "include calling itself",
			template: `{{ include "self" . }}`,
			helpers:  `{{ define "self" }}{{ include "self" . }}{{ end }}`,
			want:     "template gateway/first, line 6: " + nestedTooDeep},
		{name: "template calling itself",
			template: `{{ template "self" . }}`,
			helpers:  `{{ define "self" }}{{ template "self" . }}{{ end }}`,
			want:     "template helpers, line 1: " + nestedTooDeep},
		{name: "tpl in a loop",
			template: `{{ range until 10000 }}{{ tpl "{{ . }}" . }}{{ end }}`,
			want:     "template gateway/first, line 6: " + exceededOperations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := gatewayTemplates(t, configMap+"data:\n  a: \""+tt.template+"\"\n")
			bp.Spec.Helpers = tt.helpers
			out, err := renderGateway(t, bp, tt.values)
			if want := "GatewayClassBlueprint bp, " + tt.want; err == nil || err.Error() != want {
				t.Fatalf("got %v, want %q", err, want)
			}
			if out != nil {
				t.Fatalf("a failed render returned objects: %v", out.Objects)
			}
		})
	}
}

// Nesting is bounded, not the number of calls: a template, include or tpl gives its
// level back when it returns, so calls one after another never add up to "too deep".
func TestRenderCallsTemplatesOneAfterAnotherWithoutLimit(t *testing.T) {
	for name, call := range map[string]string{
		"template": `{{ template "leaf" . }}`,
		"include":  `{{ include "leaf" . }}`,
		"tpl":      `{{ tpl "x" . }}`,
	} {
		t.Run(name, func(t *testing.T) {
			bp := gatewayTemplates(t, configMap+"data:\n  a: \"{{ range until 1500 }}"+call+"{{ end }}\"\n")
			bp.Spec.Helpers = `{{ define "leaf" }}x{{ end }}`
			out, err := renderGateway(t, bp, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Objects[0].Object["data"].(map[string]any)["a"]; got != strings.Repeat("x", 1500) {
				t.Fatalf("rendered %v", got)
			}
		})
	}
}

func TestRenderStopsAtItsDeadline(t *testing.T) {
	now := time.Now()
	render.SetClock(t, func() time.Time {
		now = now.Add(time.Second)
		return now
	})
	_, err := renderGateway(t, gatewayTemplates(t, configMap+"data:\n  a: \"{{ range until 10 }}{{ if true }}{{ sha256sum \"x\" }}{{ end }}{{ end }}\"\n"), nil)
	want := "GatewayClassBlueprint bp, template gateway/first, line 6: render exceeded its time limit of 2s (a loop over costly functions?)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	if !errors.Is(err, render.ErrTimeLimit) {
		t.Fatalf("the time limit is not told apart from the other limits: %#v", err)
	}
}
