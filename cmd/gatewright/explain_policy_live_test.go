package main

import (
	"bytes"
	"strings"
	"testing"
)

// The provider's blueprint and override, team-a's Gateway with a route of its own and
// one of team-b's, and team-a's namespace-wide policy. team-a's owner has the tenant
// role and reads routes in team-a, and the grants docs/security.md lists for explain;
// bare-tenant has only the tenant role and route rights in team-a.
const placementFixture = `
apiVersion: v1
kind: Namespace
metadata: {name: gatewright-system}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: internet}
spec:
  values:
    default: {timeout: 10s}
  gatewayTemplate: {}
  httpRouteTemplate: {}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: internet}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: internet}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: global, namespace: gatewright-system}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}]
  override: {timeout: 60s}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: internet
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: team, namespace: team-a}
spec:
  targetRefs: [{group: "", kind: Namespace, name: team-a}]
  default: {timeout: 30s, retries: 2}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: home, namespace: team-a}
spec:
  parentRefs: [{name: web}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: team-b}
spec:
  parentRefs: [{name: web, namespace: team-a}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: routes, namespace: team-a}
rules:
- apiGroups: [gateway.networking.k8s.io]
  resources: [gateways, httproutes]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: routes, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: routes}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: bare-tenant}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: tenant, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: bare-tenant}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-owner, namespace: gatewright-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: read-classes}
rules:
- apiGroups: [gateway.networking.k8s.io]
  resources: [gatewayclasses]
  verbs: [get, list, watch]
- apiGroups: [gatewright.dev]
  resources: [gatewayclassblueprints]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: team-a-owner-classes}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: read-classes}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
`

// TestExplainPolicyLive explains, on a real API server, where a namespace's policy lands
// as the cluster's admin and as tenants: a tenant sees the contexts it may read, is told
// on stderr what it may not, and gets no values computed without the provider's policies.
func TestExplainPolicyLive(t *testing.T) {
	_, _, kubeconfig := tenantCluster(t, placementFixture)
	tests := []struct {
		name                  string
		kubeconfig            string
		args                  []string
		want, wantErr, absent []string
		exit                  int
	}{
		{name: "the admin sees every context, the route of another namespace included", kubeconfig: kubeconfig(""),
			args: []string{"gatewayconfig", "team", "-n", "team-a"},
			want: []string{
				"Target Namespace/team-a: Programmed=True PartiallyProgrammed: not all in effect: on Gateway team-a/web: overridden by GatewayClassConfig gatewright-system/global",
				"It reaches 3 context(s), with 1 outcome(s).",
				"3 context(s): Gateway team-a/web, HTTPRoute team-a/home on Gateway team-a/web, HTTPRoute team-b/shop on Gateway team-a/web",
				"timeout  default  overridden by the override of GatewayClassConfig gatewright-system/global (level 2)",
				"retries  default  in effect",
			},
			absent: []string{"warning"}},
		{name: "a tenant whose Gateway takes other namespaces' routes, which it may not read, gets no verdict", kubeconfig: kubeconfig("team-a-owner"),
			args:    []string{"gwc", "team", "-n", "team-a"},
			wantErr: []string{"cannot read HTTPRoutes outside namespace team-a (forbidden): the Gateways and routes there are not shown"},
			absent:  []string{"team-b/shop", "Target Namespace/team-a"}, exit: 2},
		{name: "with --partial, a tenant sees its namespace's contexts, marked partial", kubeconfig: kubeconfig("team-a-owner"),
			args: []string{"gwc", "team", "-n", "team-a", "--partial"},
			want: []string{
				"PARTIAL: computed without what could not be read",
				"  cannot read HTTPRoutes outside namespace team-a (forbidden)",
				"2 context(s): Gateway team-a/web, HTTPRoute team-a/home on Gateway team-a/web\n",
				"timeout  default  overridden by the override of GatewayClassConfig gatewright-system/global (level 2)",
			},
			absent: []string{"team-b/shop"}, exit: 2},
		{name: "a tenant without them gets no values computed, and is told why", kubeconfig: kubeconfig("bare-tenant"),
			args: []string{"gatewayconfig", "team", "-n", "team-a", "-o", "yaml", "--partial"}, exit: 2,
			want: []string{
				"notComputed: 'GatewayClass internet: gatewayclasses.gateway.networking.k8s.io",
				"reason: Pending",
			},
			wantErr: []string{
				"warning: cannot read GatewayClass internet (forbidden): the contexts whose values need it are not computed",
				"warning: cannot read HTTPRoutes outside namespace team-a (forbidden)",
			}},
		{name: "a tenant without them, without --partial, gets nothing but what it could not read", kubeconfig: kubeconfig("bare-tenant"),
			args:    []string{"gatewayconfig", "team", "-n", "team-a"},
			wantErr: []string{"cannot read GatewayClass internet (forbidden)"},
			absent:  []string{"Target Namespace/team-a"}, exit: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(append([]string{"explain", "--kubeconfig", tt.kubeconfig}, tt.args...))
			if err := cmd.Execute(); exitCodeOf(err) != tt.exit {
				t.Fatalf("exit %d (%v), want %d\n%s", exitCodeOf(err), err, tt.exit, errOut.String())
			}
			for _, want := range tt.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the output lacks %q:\n%s", want, out.String())
				}
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
				}
			}
			for _, absent := range tt.absent {
				if strings.Contains(out.String()+errOut.String(), absent) {
					t.Errorf("the output has %q:\n%s\n%s", absent, out.String(), errOut.String())
				}
			}
		})
	}
}
