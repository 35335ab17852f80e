package offline_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gatewright/gatewright/internal/offline"
)

// The file has a document before the blueprint, so that lines count from the file's
// start, not the document's.
const placedBlueprint = `apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: bp
spec:
  helpers: |
    {{- define "name" -}}
    {{ .Gateway.metadata.name }}
    {{- end -}}
  gatewayTemplate:
    resourceTemplates:
    - name: block
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: block}
    - name: folded
      template: >
        apiVersion: v1
    - name: inline
      template: "{{ fail \"no\" }}"
    status:
      template: |
        addresses: []
  httpRouteTemplate:
    resourceTemplates:
    - name: route
      template: |-
        apiVersion: v1
        kind: ConfigMap
`

func TestLocateNamesTheLineOfTheFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "blueprint.yaml")
	if err := os.WriteFile(file, []byte(placedBlueprint), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := offline.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		template string
		line     int
		want     int // 0: cannot be placed
	}{
		{"helpers", 2, 12},
		{"gateway/block", 1, 18},
		{"gateway/block", 3, 20},
		{"gateway/folded", 1, 0},
		{"gateway/inline", 1, 25},
		{"gateway/inline", 2, 0},
		{"gateway/status", 1, 28},
		{"httproute/route", 2, 34},
		{"gateway/missing", 1, 0},
	}
	for _, tt := range tests {
		want := ""
		if tt.want > 0 {
			want = file + ":" + strconv.Itoa(tt.want)
		}
		if got := set.Locate("bp", tt.template, tt.line); got != want {
			t.Errorf("%s line %d: got %q, want %q", tt.template, tt.line, got, want)
		}
	}
	if got := set.Locate("other", "helpers", 1); got != "" {
		t.Errorf("a blueprint not read from a file is placed at %q", got)
	}
	if got, want := set.TemplateSource("bp", "gateway/block"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: block}\n"; got != want {
		t.Errorf("source %q, want %q", got, want)
	}
}
