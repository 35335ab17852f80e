package revisions

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestNamesAndLabelsFitTheAPIServer(t *testing.T) {
	cases := []struct {
		name      string
		blueprint string
		revision  int64
		wantName  string
		wantLabel string
	}{
		{"a short blueprint name is kept whole", "envoy", 3, "envoy-3", "envoy"},
		{"a long name is cut and ends with a hash", strings.Repeat("a", 253), 12, "", ""},
		{"a cut never leaves a dot before the hash", strings.Repeat("a.", 126) + "a", 1, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name, label := Name(c.blueprint, c.revision), LabelValue(c.blueprint)
			if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
				t.Errorf("name %q: %v", name, errs)
			}
			if errs := validation.IsValidLabelValue(label); len(errs) > 0 {
				t.Errorf("label %q: %v", label, errs)
			}
			if c.wantName != "" && (name != c.wantName || label != c.wantLabel) {
				t.Errorf("got %q and %q, want %q and %q", name, label, c.wantName, c.wantLabel)
			}
		})
	}
}
