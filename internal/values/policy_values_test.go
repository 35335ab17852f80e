package values_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// TestValuesOf checks that the leaves a policy sets are listed with the paths, halves
// and strategies that reports use, and that a policy the engine refuses is refused.
func TestValuesOf(t *testing.T) {
	source := values.Source{Kind: gatewrightv1alpha1.KindGatewayConfig, Namespace: "team-a", Name: "web"}
	block := func(s string) *apiextensionsv1.JSON {
		if s == "" {
			return nil
		}
		return &apiextensionsv1.JSON{Raw: []byte(s)}
	}
	tests := []struct {
		name                string
		defaults, overrides string
		want                []values.SetValue
		wantErr             string
	}{
		{name: "the shorthand's leaves, nulls and empty objects included, by path",
			defaults: `{"timeout": "30s", "labels": {"app.kubernetes.io/name": "web"}, "debug": null, "extra": {}}`,
			want: []values.SetValue{
				{Path: "debug", Value: nil, As: values.Default, Strategy: patch},
				{Path: "extra", Value: map[string]any{}, As: values.Default, Strategy: patch},
				{Path: `labels["app.kubernetes.io/name"]`, Value: "web", As: values.Default, Strategy: patch},
				{Path: "timeout", Value: "30s", As: values.Default, Strategy: patch},
			}},
		{name: "defaults come before overrides, each with its block's strategy",
			defaults: `{"values": {"tls": {"version": "1.2"}}, "strategy": "Atomic"}`, overrides: `{"values": {"paused": true}, "strategy": "Merge", "when": "true"}`,
			want: []values.SetValue{
				{Path: "tls.version", Value: "1.2", As: values.Default, Strategy: atomic},
				{Path: "paused", Value: true, As: values.Override, Strategy: merge},
			}},
		{name: "a block the engine cannot read is refused with its field",
			overrides: `{"values": {}, "strategy": "Sideways"}`,
			wantErr:   `GatewayConfig team-a/web: spec.override.strategy: must be Patch, Merge or Atomic, not "Sideways"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := values.ValuesOf(source, &gatewrightv1alpha1.DefaultsAndOverrides{Default: block(tt.defaults), Override: block(tt.overrides)})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}
