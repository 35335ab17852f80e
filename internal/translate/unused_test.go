package translate

import (
	"fmt"
	"testing"

	"github.com/gatewright/gatewright/internal/values"
)

func TestUnusedNote(t *testing.T) {
	mine := values.Source{Kind: "GatewayConfig", Namespace: "team-a", Name: "web"}
	other := values.Source{Kind: "GatewayConfig", Namespace: "team-a", Name: "other"}
	unused := func(source values.Source, paths ...string) []values.UnusedValue {
		var out []values.UnusedValue
		for _, path := range paths {
			out = append(out, values.UnusedValue{Path: path, Origin: values.Origin{Source: source}})
		}
		return out
	}
	many := func(prefix string, n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("%s%d", prefix, i))
		}
		return out
	}
	tests := []struct {
		name  string
		found map[string][]values.UnusedValue
		want  string
	}{
		{
			name: "nothing unused says nothing",
			want: "",
		},
		{
			name:  "values another policy set are not this policy's to hear about",
			found: map[string][]values.UnusedValue{"bp": unused(other, "replica")},
			want:  "",
		},
		{
			name:  "a suggestion follows its path",
			found: map[string][]values.UnusedValue{"bp": {{Path: "replica", Suggestion: "replicas", Origin: values.Origin{Source: mine}}}},
			want:  "not read by GatewayClassBlueprint bp: replica (did you mean replicas?)",
		},
		{
			name:  "a value found on several contexts is named once",
			found: map[string][]values.UnusedValue{"bp": append(unused(mine, "b", "a"), unused(mine, "a")...)},
			want:  "not read by GatewayClassBlueprint bp: a, b",
		},
		{
			name:  "at most five values are named per blueprint, then counted",
			found: map[string][]values.UnusedValue{"bp": unused(mine, many("k", 8)...)},
			want:  "not read by GatewayClassBlueprint bp: k0, k1, k2, k3, k4, and 3 more",
		},
		{
			name: "at most five blueprints are named, then counted",
			found: map[string][]values.UnusedValue{
				"a": unused(mine, "x"), "b": unused(mine, "x"), "c": unused(mine, "x"),
				"d": unused(mine, "x"), "e": unused(mine, "x"), "f": unused(mine, "x"), "g": unused(mine, "x"),
			},
			want: "not read by GatewayClassBlueprint a: x; not read by GatewayClassBlueprint b: x; not read by GatewayClassBlueprint c: x; " +
				"not read by GatewayClassBlueprint d: x; not read by GatewayClassBlueprint e: x; and by 2 more blueprints",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := unusedValues{}
			for blueprint, found := range tt.found {
				u.add(blueprint, mine, found)
			}
			if got := u.note(); got != tt.want {
				t.Errorf("note() = %q, want %q", got, tt.want)
			}
		})
	}
}
