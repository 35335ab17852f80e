package docs_test

import (
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gatewright/gatewright/test/testenv"
)

// walkTenants replays install.md's tenants on the command line and diff.md's tenant
// examples as alice of the group team-a, with her own kubeconfig: the persona roles
// applied as both installs ship them, and the grants made by the page's own kubectl
// commands, the one in the controller namespace last, so that the examples without it
// run first. Then a provider checks what she sees with --as, gatewright as kubectl's
// plugin included.
func walkTenants(t *testing.T, live *liveCluster, bin string) {
	root := testenv.RepoRoot()
	install := filepath.Join(root, "docs", "install.md")
	diffPage := filepath.Join(root, "docs", "diff.md")
	for _, roles := range []string{"tenant_role.yaml", "viewer_role.yaml", "provider_role.yaml", "tenant_reader_roles.yaml"} {
		live.applyFiles(t, filepath.Join(root, "config", "rbac", roles))
	}
	var controllerNamespace []string
	grants := append(shellAfter(t, install, "To make someone a tenant and nothing more"), shellAfter(t, install, "These grants are exactly that")...)
	for _, command := range grants {
		if strings.Contains(command, "-n gatewright-system") {
			controllerNamespace = append(controllerNamespace, command)
			continue
		}
		live.sh(t, bin, command)
	}
	live.aggregateRoles(t)
	alice := live.kubeconfigAs(t, "alice", "team-a")

	t.Run("install.md: a tenant's diff without the controller-namespace binding", func(t *testing.T) {
		replay(t, bin, alice, blockAfter(t, install, "Without the controller-namespace binding"))
	})
	t.Run("diff.md: a tenant's diff without the global GatewayClassConfigs", func(t *testing.T) {
		replay(t, bin, alice, blockAfter(t, diffPage, "raises her Gateway's replicas from 3 to 4"))
	})
	for _, command := range controllerNamespace {
		live.sh(t, bin, command)
	}
	t.Run("install.md: a tenant's diff, explain and tree with the grants", func(t *testing.T) {
		replay(t, bin, alice, blockAfter(t, install, "saved as `private-service.yaml`"))
	})
	t.Run("diff.md: a tenant's diff of her replicas", func(t *testing.T) {
		replay(t, bin, alice, blockAfter(t, diffPage, "With every grant, the same command"))
	})
	t.Run("diff.md: a tenant's diff of a value the provider overrides", func(t *testing.T) {
		replay(t, bin, alice, blockShowing(t, diffPage, "gatewright diff -n team-a -f private-service.yaml"))
	})
	t.Run("install.md: checking what a tenant sees, with --as and as kubectl's plugin", func(t *testing.T) {
		replay(t, bin, live.kubeconfig, blockShowing(t, install, "gatewright diff -n team-a -f private-service.yaml --as alice"))
	})
}

// aggregateRoles does what kube-controller-manager, which envtest does not run, does for
// the built-in view, edit and admin roles: each ClusterRole with an aggregationRule gets
// the rules of every ClusterRole its selectors match (Gatewright's personas among them).
func (c *liveCluster) aggregateRoles(t *testing.T) {
	t.Helper()
	var roles rbacv1.ClusterRoleList
	if err := c.k8s.List(t.Context(), &roles); err != nil {
		t.Fatal(err)
	}
	for i := range roles.Items {
		role := &roles.Items[i]
		if role.AggregationRule == nil {
			continue
		}
		var rules []rbacv1.PolicyRule
		for _, selector := range role.AggregationRule.ClusterRoleSelectors {
			match, err := metav1.LabelSelectorAsSelector(&selector)
			if err != nil {
				t.Fatal(err)
			}
			for _, other := range roles.Items {
				if other.Name != role.Name && match.Matches(labels.Set(other.Labels)) {
					rules = append(rules, other.Rules...)
				}
			}
		}
		role.Rules = rules
		if err := c.k8s.Update(t.Context(), role); err != nil {
			t.Fatal(err)
		}
	}
}
