package values

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePathReadsWhatRenderPathWrites(t *testing.T) {
	tests := []struct {
		name string
		path []string
	}{
		{name: "a plain key", path: []string{"replicas"}},
		{name: "dotted plain keys", path: []string{"service", "type"}},
		{name: "a quoted key in the middle", path: []string{"labels", "app.kubernetes.io/name", "x"}},
		{name: "a quoted key first", path: []string{"a b", "c"}},
		{name: "a key with brackets and quotes", path: []string{"x", `["y"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parsePath(renderPath(tt.path))
			if !ok {
				t.Fatalf("parsePath(%q) failed", renderPath(tt.path))
			}
			if diff := cmp.Diff(tt.path, got); diff != "" {
				t.Errorf("path (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNearest(t *testing.T) {
	candidates := []string{"replicas", "service.type", "service.port"}
	tests := []struct {
		name, path, key, want string
	}{
		{name: "a missing letter is a typo", path: "replica", key: "replica", want: "replicas"},
		{name: "swapped neighbours are a typo", path: "service.tpye", key: "tpye", want: "service.type"},
		{name: "another case is a typo", path: "Replicas", key: "Replicas", want: "replicas"},
		{name: "a different word is not", path: "service.name", key: "name"},
		{name: "a short key allows one edit only", path: "service.pt", key: "pt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Nearest(tt.path, tt.key, candidates); got != tt.want {
				t.Errorf("Nearest(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"replicas", "replicas", 0},
		{"replica", "replicas", 1},
		{"tpye", "type", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestUnusedSuggestsForTheFirstFewOnly: a tenant may set 10,000 values nothing reads;
// each suggestion costs an edit distance to every known path, so only the first few get
// one, and every unused value is still reported.
func TestUnusedSuggestsForTheFirstFewOnly(t *testing.T) {
	known := Known{Subtrees: [][]string{{"replicas"}}}
	var provenance []Leaf
	for i := range 100 {
		provenance = append(provenance, Leaf{Path: "replica" + strings.Repeat("s", i%2) + "x" + strconv.Itoa(i)})
	}
	provenance = append(provenance, Leaf{Path: "replica"})
	unused := known.Unused(provenance)
	if len(unused) != len(provenance) {
		t.Fatalf("%d unused values, want %d", len(unused), len(provenance))
	}
	for i, u := range unused {
		if i >= maxSuggestions && u.Suggestion != "" {
			t.Fatalf("value %d (%s) got a suggestion past the first %d", i, u.Path, maxSuggestions)
		}
	}
}
