package render_test

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/render"
)

// fuzzBlueprint prints tenant values every way a careless or careful author might:
// unquoted, quoted, through toYaml, inside a block scalar, and as a name.
const fuzzBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: first
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: cm
        labels: {tier: {{ .Values.tier }}}
      data:
        quoted: {{ .Values.text | quote }}
        block: |
          {{- .Values.text | nindent 4 }}
        yaml: {{ toYaml .Values.text }}
  - name: second
    template: |
      apiVersion: v1
      kind: Service
      metadata:
        name: {{ .Values.name }}
      spec:
        ports: [{port: {{ .Values.port }}}]
`

// FuzzRenderValues feeds arbitrary tenant values to templates. Whatever the values, the
// renderer either fails cleanly with a render.Error or returns ConfigMaps and Services
// in the Gateway's namespace, stamped with Gatewright's labels: never a panic, never
// another kind, never another namespace.
func FuzzRenderValues(f *testing.F) {
	f.Add("gold", "hello", "svc", "80")
	f.Add("x\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: kube-system}", "t", "n", "1")
	f.Add("a", "-----BEGIN CERTIFICATE-----\nMIIB\n---\n-----END CERTIFICATE-----", "svc", "443")
	f.Add("}", "{{ .Values }}", "x\n  namespace: kube-system", "80}]}\n---\nkind: Namespace")
	f.Add("", "", "", "")
	parsed, err := render.Parse(blueprint(f, fuzzBlueprint))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tier, text, name, port string) {
		values := map[string]any{"tier": tier, "text": text, "name": name, "port": port}
		out, err := parsed.Gateway(testInput(values))
		if err != nil {
			if _, ok := err.(*render.Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, obj := range out.Objects {
			if kind := obj.GetKind(); kind != "ConfigMap" && kind != "Service" {
				t.Fatalf("values produced a %s", kind)
			}
			if obj.GetNamespace() != "team-a" {
				t.Fatalf("%s %s landed in namespace %q", obj.GetKind(), obj.GetName(), obj.GetNamespace())
			}
			if obj.GetLabels()["app.kubernetes.io/managed-by"] != "gatewright" {
				t.Fatalf("%s %s lost the managed-by label: %v", obj.GetKind(), obj.GetName(), obj.GetLabels())
			}
		}
	})
}

func TestRenderIsDeterministic(t *testing.T) {
	values := map[string]any{"tier": "gold", "text": "a b", "name": "svc", "port": int64(80),
		"extra": map[string]any{"z": 1, "a": 2, "m": []any{"x", map[string]any{"k": "v", "b": "c"}}}}
	bp := blueprint(t, fuzzBlueprint)
	bp.Spec.GatewayTemplate.ResourceTemplates[0].Template += "  extra: {{ toJson .Values.extra | quote }}\n  keys: {{ keys .Values.extra | sortAlpha | join \",\" }}\n"
	var first []byte
	for i := range 20 {
		out, err := renderGateway(t, bp, values)
		if err != nil {
			t.Fatal(err)
		}
		got, err := yaml.Marshal(out.Objects)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = got
		} else if !bytes.Equal(first, got) {
			t.Fatalf("render %d differs:\n%s\nvs\n%s", i, first, got)
		}
	}
}

// budgetBlueprint hands tenant numbers and text to the functions that build.
const budgetBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: first
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: cm}
      data:
        indented: {{ .Values.text | nindent (int .Values.width) | quote }}
        repeated: {{ repeat (int .Values.count) .Values.text | quote }}
        formatted: {{ printf .Values.format (int .Values.width) .Values.text | quote }}
        replaced: {{ replace "" .Values.text (repeat (int .Values.count) "x") | quote }}
        {{- $l := list }}{{ range until (int .Values.count) }}{{ $l = append $l $.Values.text }}{{ end }}
        listed: {{ $l | toYaml | quote }}
`

// FuzzRenderBudget feeds arbitrary widths, counts, formats and text to the functions
// that build. Whatever they are, the render gives objects or a render.Error, and
// allocates no more than the ceiling.
func FuzzRenderBudget(f *testing.F) {
	f.Add(4, 3, "%*d%s", "a\nb")
	f.Add(80000000, 2, "%s", "a\nb")
	f.Add(1, 1000000000, "%d", "ab")
	f.Add(1000000000, 1, "%.*f%s", "x")
	f.Add(1, 9000, "%[2]s%[2]s%[2]s", strings.Repeat("y", 4096))
	parsed, err := render.Parse(blueprint(f, budgetBlueprint))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, width, count int, format, text string) {
		in := testInput(map[string]any{"width": width, "count": count, "format": format, "text": text})
		var err error
		bytes := allocated(func() { _, err = parsed.Gateway(in) })
		if _, ok := err.(*render.Error); err != nil && !ok {
			t.Fatalf("error of type %T: %v", err, err)
		}
		if bytes > allocationCeiling {
			t.Fatalf("the render allocated %d MiB, over the ceiling of %d MiB", bytes>>20, allocationCeiling>>20)
		}
	})
}
