package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/diff"
	"github.com/gatewright/gatewright/internal/offline"
)

// tenantAccess lets team-a-owner do what a tenant of team-a does: the tenant role in
// team-a and in the controller namespace (to read the global policies), read the
// Gateways, routes, ReferenceGrants and Services of team-a, and the classes and
// blueprints. Nothing else: neither team-b nor Namespaces nor the blueprints' revisions.
const tenantAccess = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: classes-reader}
rules:
- apiGroups: [gateway.networking.k8s.io]
  resources: [gatewayclasses]
  verbs: [get, list]
- apiGroups: [gatewright.dev]
  resources: [gatewayclassblueprints]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: team-a-owner-classes}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: classes-reader}
subjects: [{kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: gateways-reader, namespace: team-a}
rules:
- apiGroups: [gateway.networking.k8s.io]
  resources: [gateways, httproutes, grpcroutes, tlsroutes, tcproutes, udproutes, listenersets, referencegrants]
  verbs: [get, list]
- apiGroups: [""]
  resources: [services]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-owner-gateways, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: gateways-reader}
subjects: [{kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-owner-tenant, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects: [{kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-owner-tenant, namespace: gatewright-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects: [{kind: User, name: team-a-owner}]
`

// TestDiffLive diffs against a real API server the scenarios the offline tests diff
// against files: the cluster holds the files' objects, and the admin gets the very report
// the files give; a tenant gets what it may read and is told what it may not.
func TestDiffLive(t *testing.T) {
	world, err := os.ReadFile(diffWorld + "base.yaml")
	if err != nil {
		t.Fatal(err)
	}
	namespaces := ""
	for _, ns := range []string{"gatewright-system", "team-a", "team-b"} {
		namespaces += "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + ns + "}\n---\n"
	}
	_, admin, kubeconfigFor := tenantCluster(t, namespaces+tenantAccess+"\n---\n"+string(world))
	adminConfig, tenantConfig := kubeconfigFor(""), kubeconfigFor("team-a-owner")

	tests := []struct {
		name       string
		kubeconfig string
		args       []string
		exit       int
		// sameAs is the offline golden report the live one must equal, when set.
		sameAs   string
		reached  int
		inStderr string
		partial  bool
	}{
		{name: "the admin's diff of a tenant policy is the offline one", kubeconfig: adminConfig,
			args: []string{"-f", diffWorld + "tenant-policy.yaml"}, exit: 1, sameAs: "tenant-policy.json", reached: 1},
		{name: "the admin's diff of a blueprint change is the offline one", kubeconfig: adminConfig,
			args: []string{"-f", diffWorld + "template-change.yaml"}, exit: 1, sameAs: "template-change.json", reached: 2},
		{name: "the admin's diff of a value the schema refuses is the offline one", kubeconfig: adminConfig,
			args: []string{"-f", diffWorld + "schema-break.yaml"}, exit: 1, sameAs: "schema-break.json", reached: 1},
		{name: "a tenant diffs its own policy with what it may read, the answer's inputs all of it", kubeconfig: tenantConfig,
			args: []string{"-n", "team-a", "-f", diffWorld + "tenant-policy.yaml"}, exit: 1, reached: 1,
			inStderr: `note: not read, and not needed for this change: Gateways in namespace gatewright-system: missing permission list gateways.gateway.networking.k8s.io`},
		{name: "a tenant's blueprint change, with --partial, reaches only the Gateways it may read and says so", kubeconfig: tenantConfig,
			args: []string{"-n", "team-a", "-f", diffWorld + "template-change.yaml", "--partial"}, exit: 1, reached: 1, partial: true},
	}
	t.Run("a tenant's blueprint change, which reaches namespaces it may not read, gets no diff", func(t *testing.T) {
		var out, errOut bytes.Buffer
		cmd := newRootCommand()
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		cmd.SetArgs([]string{"diff", "--kubeconfig", tenantConfig, "-n", "team-a", "-f", diffWorld + "template-change.yaml"})
		if code := exitCodeOf(cmd.Execute()); code != diffFailed || out.Len() > 0 ||
			!strings.Contains(errOut.String(), "cannot read Gateways in all namespaces: missing permission list gateways.gateway.networking.k8s.io (read in namespace team-a only)") {
			t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 naming the Gateways of every namespace", code, out.String(), errOut.String())
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(append([]string{"diff", "--kubeconfig", tt.kubeconfig, "-o", "json"}, tt.args...))
			err := cmd.Execute()
			if got := exitCodeOf(err); got != tt.exit {
				t.Fatalf("exit %d (%v), want %d; stderr:\n%s", got, err, tt.exit, errOut.String())
			}
			var report diff.Report
			if err := json.Unmarshal(out.Bytes(), &report); err != nil {
				t.Fatalf("%v in %s", err, out.String())
			}
			if report.Partial != tt.partial || tt.partial && len(report.Unread) == 0 {
				t.Errorf("partial %v (unread %v), want %v", report.Partial, report.Unread, tt.partial)
			}
			if report.Summary.Gateways != tt.reached {
				t.Errorf("reached %d Gateways, want %d:\n%s", report.Summary.Gateways, tt.reached, out.String())
			}
			if tt.sameAs != "" {
				want, err := os.ReadFile(filepath.Join(diffWorld, tt.sameAs))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out.Bytes(), want) {
					t.Errorf("the live report differs from %s:\n%s", tt.sameAs, out.String())
				}
			}
			if !strings.Contains(errOut.String(), tt.inStderr) {
				t.Errorf("stderr %q does not say %q", errOut.String(), tt.inStderr)
			}
		})
	}

	t.Run("Services are read as metadata, for the namespaces a changed route's backendRefs name", func(t *testing.T) {
		createAll(t, admin, "apiVersion: v1\nkind: Service\nmetadata: {name: app, namespace: team-b}\nspec: {ports: [{port: 80}]}\n---\n"+
			"apiVersion: v1\nkind: Service\nmetadata: {name: unrelated, namespace: gatewright-system}\nspec: {ports: [{port: 80}]}")
		backends := gatewayv1.Namespace("team-b")
		route := gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "new"}, Spec: gatewayv1.HTTPRouteSpec{
			Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: "app", Namespace: &backends}}}}}},
		}}
		set, _, err := offline.FromCluster(t.Context(), admin, offline.ClusterOptions{Changes: &offline.Set{HTTPRoutes: []gatewayv1.HTTPRoute{route}}})
		if err != nil {
			t.Fatal(err)
		}
		var services []string
		for _, svc := range set.Services {
			services = append(services, svc.Namespace+"/"+svc.Name)
		}
		if len(services) != 1 || services[0] != "team-b/app" {
			t.Errorf("read Services %q, want only team-b/app", services)
		}
	})
}
