package render_test

import (
	"bytes"
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
