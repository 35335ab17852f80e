package render_test

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
)

// A tenant controls values. A template that prints a value unquoted lets the value
// carry YAML of its own: a newline, a document separator and a whole new object. The
// renderer must never let such an object through.
func TestYAMLInjectionThroughValuesNeverYieldsTheInjectedObject(t *testing.T) {
	clusterRoleBinding := "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: pwned}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: ServiceAccount, name: default, namespace: team-a}]\n"
	roleInKubeSystem := "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: pwned, namespace: kube-system}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}\n"
	unquoted := configMap + "data:\n  owner: {{ .Values.owner }}\n"
	tests := []struct {
		name  string
		owner string
		want  string
	}{
		{"a ClusterRoleBinding is refused as a cluster-scoped kind the blueprint does not allow", clusterRoleBinding,
			"ClusterRoleBinding.rbac.authorization.k8s.io is cluster-scoped and not in the blueprint's clusterScopedKinds"},
		{"a RoleBinding in another namespace is refused by the namespace rule", roleInKubeSystem,
			"must be in namespace team-a, not kube-system"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := renderGateway(t, gatewayTemplates(t, unquoted), map[string]any{"owner": tt.owner})
			var renderErr *render.Error
			if !errors.As(err, &renderErr) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want a render error containing %q", err, tt.want)
			}
			if out != nil {
				t.Fatalf("objects escaped: %v", out.Objects)
			}
		})
	}

	t.Run("quoting the value keeps it a string", func(t *testing.T) {
		quoted := configMap + "data:\n  owner: {{ .Values.owner | quote }}\n"
		out, err := renderGateway(t, gatewayTemplates(t, quoted), map[string]any{"owner": clusterRoleBinding})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Objects) != 1 || out.Objects[0].GetKind() != "ConfigMap" {
			t.Fatalf("got %v, want the ConfigMap alone", out.Objects)
		}
		if got, _, _ := unstructured.NestedString(out.Objects[0].Object, "data", "owner"); got != clusterRoleBinding {
			t.Errorf("owner = %q, want the value verbatim", got)
		}
	})
}

func TestClusterScopedKindsTheBlueprintAllows(t *testing.T) {
	bp := gatewayTemplates(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a-dns}\n")
	if _, err := renderGateway(t, bp, nil); err == nil {
		t.Fatal("a Namespace rendered without clusterScopedKinds")
	}
	bp.Spec.ClusterScopedKinds = []gatewrightv1alpha1.GroupKind{{Group: "", Kind: "Namespace"}}
	out, err := renderGateway(t, bp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ns := out.Objects[0].GetNamespace(); ns != "" {
		t.Errorf("cluster-scoped object got namespace %q", ns)
	}
}

// A tenant's number must not make a render build something the controller cannot hold:
// sequences, repeats and the total output are bounded, and the render fails with a
// message instead.
func TestTenantNumbersCannotMakeARenderUnbounded(t *testing.T) {
	tests := []struct {
		name     string
		template string
		want     string
	}{
		{"until", "{{ range until (int .Values.n) }}x{{ end }}", "until: a sequence of 1000000000 elements is longer than the 10000 a render allows"},
		{"untilStep", "{{ range untilStep 0 (int .Values.n) 2 }}x{{ end }}", "untilStep: a sequence of 500000000 elements is longer than the 10000 a render allows"},
		{"seq", "{{ seq (int .Values.n) }}", "seq: a sequence of 999999999 elements is longer than the 10000 a render allows"},
		{"until of the smallest integer", "{{ range until -9223372036854775808 }}x{{ end }}", "until: a sequence of 1152921504606846976 elements is longer than the 10000 a render allows"},
		{"repeat", "{{ repeat (int .Values.n) \"ab\" }}", "line 6: repeat would allocate 1.9 GiB, over the 32.0 MiB left of the render's 32 MiB budget"},
		{"a loop that writes too much", "{{ range until 10000 }}{{ repeat 1000 \"x\" }}{{ end }}", "the render wrote more than 8 MiB"},
		{"a loop that writes too many nodes", "{{ range until 10000 }}{{ repeat 20 \"0,\" }}{{ end }}", "the render wrote more than 100000 lines, commas and brackets together"},
		{"a loop that writes too much through include", "{{ range until 10000 }}{{ include \"kilobyte\" . }}{{ end }}{{ define \"kilobyte\" }}{{ repeat 1000 \"x\" }}{{ end }}", "the render wrote more than 8 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := renderGateway(t, gatewayTemplates(t, configMap+"data:\n  big: \""+tt.template+"\"\n"), map[string]any{"n": 1000000000})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if out != nil {
				t.Fatalf("a failed render returned objects: %v", out.Objects)
			}
		})
	}
	t.Run("sequences within the limit still work", func(t *testing.T) {
		out, err := renderGateway(t, gatewayTemplates(t, configMap+"data:\n  ports: {{ until 3 | toJson | quote }}\n  line: {{ repeat 3 \"ab\" | quote }}\n  seq: {{ seq 3 | quote }}\n"), nil)
		if err != nil {
			t.Fatal(err)
		}
		data, _, _ := unstructured.NestedStringMap(out.Objects[0].Object, "data")
		if data["ports"] != "[0,1,2]" || data["line"] != "ababab" || data["seq"] != "1 2 3" {
			t.Errorf("data = %v", data)
		}
	})
}

// fromYaml and fromYamlArray may be handed a tenant's string. YAML aliases can make a
// few hundred bytes stand for billions of nodes; the parser refuses such a document, and
// the template gets the refusal (as Helm's do: an "Error" key, or the error as the only
// element) instead of the expansion.
func TestTenantYAMLCannotExpandThroughAliases(t *testing.T) {
	// Nine levels of nine aliases each: a billion "lol"s from under a kilobyte.
	var doc, list string
	for level := range 9 {
		name, items := string(rune('a'+level)), `"lol"`
		if level > 0 {
			items = "*" + string(rune('a'+level-1))
		}
		items = strings.TrimSuffix(strings.Repeat(items+",", 9), ",")
		doc += name + ": &" + name + " [" + items + "]\n"
		list += "- &" + name + " [" + items + "]\n"
	}
	for name, template := range map[string]string{
		"fromYaml":      `{{ (fromYaml .Values.doc).Error | quote }}`,
		"fromYamlArray": `{{ fromYamlArray .Values.list | first | quote }}`,
	} {
		t.Run(name, func(t *testing.T) {
			out, err := renderGateway(t, gatewayTemplates(t, configMap+"data:\n  doc: "+template+"\n"), map[string]any{"doc": doc, "list": list})
			if err != nil {
				t.Fatal(err)
			}
			got, _, _ := unstructured.NestedString(out.Objects[0].Object, "data", "doc")
			if !strings.Contains(got, "excessive aliasing") {
				t.Fatalf("doc = %.200q, want the parser's refusal", got)
			}
		})
	}
}
