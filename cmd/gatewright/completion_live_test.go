package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/test/testenv"
)

// completionWorld adds to tenantWorld what the completions below offer: a route, a
// tenant's policy and a second blueprint.
const completionWorld = `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: team-a}
spec:
  parentRefs: [{name: web}]
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {replicas: 2}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: internal-proxy}
spec:
  gatewayTemplate:
    resourceTemplates:
    - name: config
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-config
`

// TestLiveCompletionAndImpersonation runs the shell's completion requests (cobra's
// __complete, what the scripts of `gatewright completion` send, with the word being
// completed last) against a control plane, as the admin and as a tenant, and the live
// commands with --as and --as-group.
func TestLiveCompletionAndImpersonation(t *testing.T) {
	roles, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "rbac", "tenant_reader_roles.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, kubeconfigFor := tenantCluster(t, tenantWorld+"\n---\n"+string(roles)+"\n---\n"+tenantGrants+"\n---\n"+completionWorld)
	admin := kubeconfigFor("")
	run := func(t *testing.T, args ...string) (int, string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		cmd := newRootCommand()
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		cmd.SetArgs(args)
		return exitCodeOf(cmd.Execute()), out.String(), errOut.String()
	}
	complete := func(t *testing.T, args ...string) []string {
		t.Helper()
		code, out, errOut := run(t, append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("__complete %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		directive := lines[len(lines)-1]
		if !strings.HasPrefix(directive, ":") {
			t.Fatalf("__complete %s: no directive in %q", strings.Join(args, " "), out)
		}
		var words []string
		for _, line := range lines[:len(lines)-1] {
			word, _, _ := strings.Cut(line, "\t")
			words = append(words, word)
		}
		return words
	}

	// Where no --kubeconfig is given, the admin's is: an offline command would read it.
	t.Setenv("KUBECONFIG", admin)
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"explain offers the kinds it explains, and its subcommand", []string{"explain", ""}, []string{"request", "gateway", "httproute", "grpcroute", "tlsroute", "tcproute", "udproute", "gatewayconfig", "gatewayclassconfig"}},
		{"explain gateway offers the Gateways of -n", []string{"explain", "-n", "team-a", "--kubeconfig", admin, "gateway", ""}, []string{"web"}},
		{"explain gw takes the kind's short name", []string{"explain", "-n", "team-b", "--kubeconfig", admin, "gw", ""}, []string{"api"}},
		{"explain httproute offers routes", []string{"explain", "-n", "team-a", "--kubeconfig", admin, "httproute", ""}, []string{"shop"}},
		{"explain gatewayconfig offers the tenant's policies", []string{"explain", "-n", "team-a", "--kubeconfig", admin, "gatewayconfig", ""}, []string{"web"}},
		{"explain gcc offers the provider's policies", []string{"explain", "-n", "gatewright-system", "--kubeconfig", admin, "gcc", ""}, []string{"global"}},
		{"a typed prefix narrows the names", []string{"explain", "-n", "team-a", "--kubeconfig", admin, "gateway", "x"}, nil},
		{"nothing is offered past the name", []string{"explain", "-n", "team-a", "--kubeconfig", admin, "gateway", "web", ""}, nil},
		{"tree offers Gateways", []string{"tree", "-n", "team-a", "--kubeconfig", admin, "gateway", ""}, []string{"web"}},
		{"rollout offers the blueprints", []string{"rollout", "status", "--kubeconfig", admin, ""}, []string{"internal-proxy", "proxy"}},
		{"rollout undo offers the blueprints too", []string{"rollout", "undo", "--kubeconfig", admin, "p"}, []string{"proxy"}},
		{"-n offers the namespaces", []string{"explain", "gateway", "web", "--kubeconfig", admin, "-n", "team"}, []string{"team-a", "team-b"}},
		{"diff's -n offers the namespaces", []string{"diff", "--kubeconfig", admin, "--namespace", "team-"}, []string{"team-a", "team-b"}},
		{"--gateway offers the Gateways of -n by name, and every Gateway by namespace", []string{"explain", "request", "http://x/", "--kubeconfig", admin, "-n", "team-a", "--gateway", ""}, []string{"web", "team-a/web", "team-b/api"}},
		{"diff --delete offers the kinds first", []string{"diff", "--kubeconfig", admin, "--delete", "Gateway"}, []string{"Gateway/", "GatewayConfig/", "GatewayClassConfig/", "GatewayClassBlueprint/", "GatewayClass/"}},
		{"diff --delete offers the namespaces of a namespaced kind", []string{"diff", "--kubeconfig", admin, "--delete", "HTTPRoute/team-"}, []string{"HTTPRoute/team-a/", "HTTPRoute/team-b/"}},
		{"diff --delete then offers the names in the namespace", []string{"diff", "--kubeconfig", admin, "--delete", "HTTPRoute/team-a/"}, []string{"HTTPRoute/team-a/shop"}},
		{"diff --delete offers the names of a cluster-scoped kind", []string{"diff", "--kubeconfig", admin, "--delete", "GatewayClassBlueprint/"}, []string{"GatewayClassBlueprint/internal-proxy", "GatewayClassBlueprint/proxy"}},
		{"--context offers the kubeconfig's contexts", []string{"tree", "--kubeconfig", admin, "--context", ""}, []string{"envtest"}},
		{"a tenant is offered what the tenant may list", []string{"explain", "-n", "team-a", "--kubeconfig", admin, "--as", "team-a-owner", "gateway", ""}, []string{"web"}},
		{"a tenant is offered nothing where the tenant may not list", []string{"explain", "-n", "team-b", "--kubeconfig", admin, "--as", "team-a-owner", "gateway", ""}, nil},
		{"a tenant is offered only the Gateways of the tenant's namespace for --gateway", []string{"explain", "request", "http://x/", "--kubeconfig", admin, "--as", "team-a-owner", "-n", "team-a", "--gateway", ""}, []string{"web"}},
		{"an offline command's --gateway offers nothing from the cluster", []string{"values", "-f", "x.yaml", "--gateway", ""}, nil},
		{"a cluster that cannot be read offers nothing", []string{"tree", "--kubeconfig", filepath.Join(t.TempDir(), "missing"), "gateway", ""}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := complete(t, c.args...)
			if !slices.Equal(got, c.want) {
				t.Errorf("__complete %s offers %q, want %q", strings.Join(c.args, " "), got, c.want)
			}
		})
	}

	t.Run("a command run --as a tenant is refused what the tenant may not read", func(t *testing.T) {
		code, _, errOut := run(t, "tree", "gateway", "api", "-n", "team-b", "--kubeconfig", admin, "--as", "team-a-owner")
		if code != 2 || !strings.Contains(errOut, "team-b") || !strings.Contains(errOut, "forbidden") && !strings.Contains(errOut, "cannot") {
			t.Errorf("exit %d, want 2 naming what team-a-owner may not read in team-b; stderr:\n%s", code, errOut)
		}
		code, out, errOut := run(t, "tree", "gateway", "api", "-n", "team-b", "--kubeconfig", admin)
		if code != 0 || !strings.Contains(out, "api") {
			t.Errorf("as the admin: exit %d, want 0 and the tree of team-b/api; stdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})

	t.Run("--as-group adds the groups the impersonated user is in", func(t *testing.T) {
		code, out, errOut := run(t, "tree", "gateway", "api", "-n", "team-b", "--kubeconfig", admin, "--as", "team-a-owner", "--as-group", "system:masters")
		if code != 0 || !strings.Contains(out, "api") {
			t.Errorf("exit %d, want 0: system:masters may read everything; stderr:\n%s", code, errOut)
		}
	})

	t.Run("rollout commands take --as: a tenant may not pause a blueprint", func(t *testing.T) {
		code, _, errOut := run(t, "rollout", "pause", "proxy", "--kubeconfig", admin, "--as", "team-a-owner")
		if code == 0 || !strings.Contains(errOut, "forbidden") {
			t.Errorf("exit %d, want a refusal; stderr:\n%s", code, errOut)
		}
	})
}
