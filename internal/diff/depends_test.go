package diff_test

import (
	"path/filepath"
	"testing"

	"github.com/gatewright/gatewright/internal/diff"
	"github.com/gatewright/gatewright/internal/offline"
)

func load(t *testing.T, name string) *offline.Set {
	t.Helper()
	set, err := offline.Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestDependsOn: a diff depends on the reads its answer is computed from, and on no
// other; a read refused that it depends on must stop it from answering.
func TestDependsOn(t *testing.T) {
	base := load(t, "base.yaml")
	tests := []struct {
		name    string
		changes string
		unread  offline.Unread
		needs   bool
	}{
		{"a tenant policy depends on the classes", "tenant-policy.yaml",
			offline.Unread{Kind: "GatewayClasses"}, true},
		{"a tenant policy depends on the global policies", "tenant-policy.yaml",
			offline.Unread{Kind: "GatewayClassConfigs", Namespace: "gatewright-system"}, true},
		{"a tenant policy depends on the policies of its namespace", "tenant-policy.yaml",
			offline.Unread{Kind: "GatewayConfigs", Namespace: "team-a"}, true},
		{"a tenant policy does not depend on the controller namespace's Gateways", "tenant-policy.yaml",
			offline.Unread{Kind: "Gateways", Namespace: "gatewright-system"}, false},
		{"a tenant policy does not depend on another tenant's Gateways", "tenant-policy.yaml",
			offline.Unread{Kind: "Gateways", AllNamespaces: true, ReadIn: []string{"gatewright-system", "team-a"}}, false},
		{"a tenant policy read nowhere but elsewhere depends on its namespace's Gateways", "tenant-policy.yaml",
			offline.Unread{Kind: "Gateways", AllNamespaces: true, ReadIn: []string{"gatewright-system"}}, true},
		{"a tenant policy does not depend on Namespaces no listener selects by", "tenant-policy.yaml",
			offline.Unread{Kind: "Namespaces"}, false},
		{"a blueprint change depends on every namespace's Gateways", "template-change.yaml",
			offline.Unread{Kind: "Gateways", AllNamespaces: true, ReadIn: []string{"team-a"}}, true},
		{"a global policy depends on every namespace's policies", "provider-override.yaml",
			offline.Unread{Kind: "GatewayConfigs", Namespace: "team-b"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed, err := base.With(load(t, tt.changes), nil, "gatewright-system")
			if err != nil {
				t.Fatal(err)
			}
			if got := diff.DependsOn(base, changed, "gatewright-system").Needs(tt.unread); got != tt.needs {
				t.Errorf("needs %s: %v, want %v", tt.unread, got, tt.needs)
			}
		})
	}
}
