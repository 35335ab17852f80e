package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    []string // kind/name of each object
		wantErr string
	}{
		{
			name:  "documents separated by --- become one object each",
			input: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n",
			want:  []string{"ConfigMap/a", "Secret/b"},
		},
		{
			name:  "empty documents and comment-only documents are skipped",
			input: "---\n# nothing here\n---\n\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n",
			want:  []string{"ConfigMap/a"},
		},
		{
			name: "a --- inside a block scalar does not split the document",
			input: `apiVersion: v1
kind: Secret
metadata: {name: tls}
stringData:
  tls.crt: |
    -----BEGIN CERTIFICATE-----
    MIIB
    ---
    -----END CERTIFICATE-----
`,
			want: []string{"Secret/tls"},
		},
		{
			name:  "a document marker followed by content on the same line starts a document",
			input: "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n--- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n",
			want:  []string{"ConfigMap/a", "ConfigMap/b"},
		},
		{
			name:    "a document that is a list is refused",
			input:   "- a\n- b\n",
			wantErr: "document 1: a document must be an object, not a list",
		},
		{
			name:    "an object without kind is refused",
			input:   "apiVersion: v1\nmetadata: {name: a}\n",
			wantErr: "document 1: an object needs apiVersion and kind",
		},
		{
			name:    "a duplicate key is refused rather than silently resolved",
			input:   "apiVersion: v1\nkind: ConfigMap\nkind: Secret\n",
			wantErr: `key "kind" already set in map`,
		},
		{
			name:    "aliases that stand for a billion nodes are refused, not expanded",
			input:   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nlaughs:\n" + billionLaughs("  "),
			wantErr: "document 1: yaml: document contains excessive aliasing",
		},
		{
			name:    "invalid YAML names the document",
			input:   "apiVersion: v1\nkind: ConfigMap\n---\nmetadata: [\n",
			wantErr: "document 2: yaml:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Decode([]byte(tt.input))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want error containing %q, got %v", tt.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, obj := range objs {
				got = append(got, obj.GetKind()+"/"+obj.GetName())
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDecodeResolvesScalarsAsKubernetesDoes(t *testing.T) {
	objs, err := Decode([]byte("apiVersion: v1\nkind: X\nspec: {replicas: 3, ratio: 0.5, on: yes, date: 2026-01-02, 80: http, name: '007'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"replicas": int64(3), "ratio": 0.5, "true": true, "date": "2026-01-02", "80": "http", "name": "007"}
	if diff := cmp.Diff(want, objs[0].Object["spec"]); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
}

func TestDecodeRefusesValuesJSONCannotHold(t *testing.T) {
	_, err := Decode([]byte("apiVersion: v1\nkind: X\nspec: {limit: .inf}\n"))
	if err == nil || !strings.Contains(err.Error(), "spec: limit: +Inf cannot be represented in JSON") {
		t.Fatalf("got %v", err)
	}
}

// billionLaughs is YAML of nine levels of nine aliases each, every line indented by
// indent: under a kilobyte that stands for a billion strings.
func billionLaughs(indent string) string {
	var out string
	for level := range 9 {
		name, items := string(rune('a'+level)), `"lol"`
		if level > 0 {
			items = "*" + string(rune('a'+level-1))
		}
		out += indent + name + ": &" + name + " [" + strings.TrimSuffix(strings.Repeat(items+",", 9), ",") + "]\n"
	}
	return out
}
