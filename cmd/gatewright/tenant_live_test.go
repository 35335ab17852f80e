package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/diff"
	"github.com/gatewright/gatewright/test/testenv"
)

// tenantGrants are the grants docs/install.md gives the tenant team-a-owner of team-a
// ("Tenants on the command line"): the roles config/rbac ships, bound as it says. The
// namespace's ordinary objects (the rendered ones) come with `view` there, whose rules an
// API server without a controller-manager to aggregate them holds in system:aggregate-to-view.
const tenantGrants = `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-owner-gatewright, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-owner-gatewright-reader, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant-reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-owner-view, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:aggregate-to-view}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: team-a-owner-gatewright-classes}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant-classes}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-owner-gatewright-global-configs, namespace: gatewright-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant-global-configs}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
`

// tenantWorld is a class whose provider fixes replicas with a global override, a
// Gateway of team-a, and one of team-b the tenant may not read. The blueprint's proxy
// ConfigMap is ready when its data says so (readyWhen); its Deployment by kstatus.
const tenantWorld = `
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
metadata: {name: proxy}
spec:
  values:
    default: {replicas: 1}
  gatewayTemplate:
    resourceTemplates:
    - name: deployment
      template: |
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ .Gateway.metadata.name }}-proxy
        spec:
          replicas: {{ .Values.replicas | int }}
          selector: {matchLabels: {app: proxy}}
          template:
            metadata: {labels: {app: proxy}}
            spec: {containers: [{name: envoy, image: envoy}]}
    - name: config
      readyWhen: has(self.data) && has(self.data.loaded) && self.data.loaded == "true"
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-config
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: internet}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: proxy}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: global, namespace: gatewright-system}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}]
  override: {replicas: 2}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: internet
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: api, namespace: team-b}
spec:
  gatewayClassName: internet
  listeners: [{name: http, protocol: HTTP, port: 80}]
`

// tenantChange is the tenant's try at more replicas, which the provider's override beats.
const tenantChange = `apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {replicas: 5}
`

// TestTenantCommandsLive runs diff and tree as a tenant with exactly the grants
// docs/install.md gives, then with grants taken away: with them, the answers are the
// ones an admin gets; without one, the commands name what they could not read and exit
// 2, or, with --partial, say their answer is partial and never exit 0.
func TestTenantCommandsLive(t *testing.T) {
	roles, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "rbac", "tenant_reader_roles.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, admin, kubeconfigFor := tenantCluster(t, tenantWorld+"\n---\n"+string(roles)+"\n---\n"+tenantGrants)
	tenant := kubeconfigFor("team-a-owner")
	change := filepath.Join(t.TempDir(), "gatewayconfig.yaml")
	if err := os.WriteFile(change, []byte(tenantChange), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, args ...string) (int, string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		cmd := newRootCommand()
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		cmd.SetArgs(append(args[:1:1], append([]string{"--kubeconfig", tenant}, args[1:]...)...))
		return exitCodeOf(cmd.Execute()), out.String(), errOut.String()
	}
	diffJSON := func(t *testing.T, out string) diff.Report {
		t.Helper()
		var report diff.Report
		if err := json.Unmarshal([]byte(out), &report); err != nil {
			t.Fatalf("%v in %q", err, out)
		}
		return report
	}

	t.Run("with the documented grants, a tenant's diff sees the provider's override win", func(t *testing.T) {
		code, out, errOut := run(t, "diff", "-n", "team-a", "-f", change, "-o", "json")
		if code != 1 {
			t.Fatalf("exit %d, want 1; stderr:\n%s", code, errOut)
		}
		report := diffJSON(t, out)
		if report.Partial || len(report.Unread) > 0 || report.Summary.Gateways != 1 {
			t.Errorf("partial %v, unread %v, %d Gateways reached; want a whole answer over team-a/web", report.Partial, report.Unread, report.Summary.Gateways)
		}
		for _, e := range report.Gateways {
			for _, v := range e.Values {
				if v.Path == "replicas" {
					t.Errorf("predicts replicas %v -> %v, where the provider's override keeps 2", v.Old, v.New)
				}
			}
		}
		if len(report.Policies) != 1 || report.Policies[0].Programmed.New != "Overridden" || !strings.Contains(report.Policies[0].Message, "gatewright-system/global") {
			t.Errorf("policies %+v, want GatewayConfig team-a/web Overridden by GatewayClassConfig gatewright-system/global", report.Policies)
		}
	})

	t.Run("with the documented grants, a tenant's tree follows readyWhen, not kstatus", func(t *testing.T) {
		createAll(t, admin, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web-proxy, namespace: team-a}
spec:
  replicas: 2
  selector: {matchLabels: {app: proxy}}
  template:
    metadata: {labels: {app: proxy}}
    spec: {containers: [{name: envoy, image: envoy}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web-config, namespace: team-a, labels: {gatewright.dev/template: deployment}}
data: {loaded: "false"}
---
apiVersion: gatewright.dev/v1alpha1
kind: Rendering
metadata:
  name: gateway.web
  namespace: team-a
  labels: {app.kubernetes.io/managed-by: gatewright, gateway.networking.k8s.io/gateway-name: web, gatewright.dev/gateway-namespace: team-a}
owner: {kind: Gateway, name: web, gatewayNamespace: team-a, gatewayName: web}
parts: 1
objects:
- {apiVersion: apps/v1, kind: Deployment, namespace: team-a, name: web-proxy, template: deployment, hash: "0000000000000000"}
- {apiVersion: v1, kind: ConfigMap, namespace: team-a, name: web-config, template: config, hash: "1111111111111111"}`)
		// kstatus calls a ConfigMap ready at once and this Deployment, which nothing runs,
		// not ready; the ConfigMap's labels name another template, which must not count.
		code, out, errOut := run(t, "tree", "gateway", "web", "-n", "team-a", "-o", "json")
		if code != 0 {
			t.Fatalf("exit %d, want 0; stderr:\n%s", code, errOut)
		}
		ready := treeReadiness(t, out)
		if ready["ConfigMap/web-config"] != "False readyWhen is false" || !strings.HasPrefix(ready["Deployment/web-proxy"], "False ") {
			t.Errorf("READY %v: want the ConfigMap not ready by its readyWhen, the Deployment not ready by kstatus", ready)
		}

		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web-config"}}
		if err := admin.Patch(t.Context(), cm, client.RawPatch(types.MergePatchType, []byte(`{"data":{"loaded":"true"}}`))); err != nil {
			t.Fatal(err)
		}
		_, out, _ = run(t, "tree", "gateway", "web", "-n", "team-a", "-o", "json")
		if ready := treeReadiness(t, out); ready["ConfigMap/web-config"] != "True " {
			t.Errorf("READY %v: want the ConfigMap ready once its readyWhen holds", ready)
		}
	})

	t.Run("tree of a Gateway that takes routes from other namespaces needs their Renderings", func(t *testing.T) {
		createAll(t, admin, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: shared, namespace: team-a}
spec:
  gatewayClassName: internet
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gatewright.dev/v1alpha1
kind: Rendering
metadata:
  name: gateway.shared
  namespace: team-a
  labels: {app.kubernetes.io/managed-by: gatewright, gateway.networking.k8s.io/gateway-name: shared, gatewright.dev/gateway-namespace: team-a}
owner: {kind: Gateway, name: shared, gatewayNamespace: team-a, gatewayName: shared}
parts: 1`)
		code, out, errOut := run(t, "tree", "gateway", "shared", "-n", "team-a")
		if code != 2 || out != "" || !strings.Contains(errOut, "cannot read Renderings in all namespaces: missing permission list renderings.gatewright.dev") {
			t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming the Renderings it could not list", code, out, errOut)
		}
		code, out, _ = run(t, "tree", "gateway", "shared", "-n", "team-a", "--partial")
		if code != 2 || !strings.Contains(out, "PARTIAL: cannot read Renderings in all namespaces") {
			t.Errorf("exit %d, stdout %q; want the tree marked PARTIAL, exit 2", code, out)
		}
		// A Gateway that takes other namespaces' routes makes every diff of team-a's
		// policies depend on them: the next tests diff without it.
		if err := admin.Delete(t.Context(), &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "shared"}}); err != nil {
			t.Fatal(err)
		}
	})

	// Last: they take grants away.
	t.Run("without the global configs, diff names them and exits 2, or marks its answer partial", func(t *testing.T) {
		deleteBinding(t, admin, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "gatewright-system", Name: "team-a-owner-gatewright-global-configs"}})
		code, out, errOut := run(t, "diff", "-n", "team-a", "-f", change)
		if code != 2 || out != "" || !strings.Contains(errOut, "cannot read GatewayClassConfigs in namespace gatewright-system: missing permission list gatewayclassconfigs.gatewright.dev") {
			t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming the GatewayClassConfigs it could not list", code, out, errOut)
		}
		code, out, errOut = run(t, "diff", "-n", "team-a", "-f", change, "-o", "json", "--partial")
		if code != 1 {
			t.Fatalf("exit %d, want 1; stderr:\n%s", code, errOut)
		}
		if report := diffJSON(t, out); !report.Partial || len(report.Unread) == 0 || report.Unread[0].Kind != "GatewayClassConfigs" {
			t.Errorf("partial %v, unread %+v; want partial, naming the GatewayClassConfigs", report.Partial, report.Unread)
		}
		code, out, _ = run(t, "diff", "-n", "team-a", "-f", change, "--partial")
		if code != 1 || !strings.HasPrefix(out, "PARTIAL: ") || !strings.Contains(out, "partial: 1 Gateway(s)") {
			t.Errorf("exit %d, stdout:\n%s\nwant it marked PARTIAL at the top and in the summary", code, out)
		}
	})

	t.Run("without the classes, diff exits 2 where it used to say nothing changes, even --partial", func(t *testing.T) {
		deleteBinding(t, admin, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "team-a-owner-gatewright-classes"}})
		code, _, errOut := run(t, "diff", "-n", "team-a", "-f", change)
		if code != 2 || !strings.Contains(errOut, "cannot read GatewayClasses (cluster-scoped): missing permission list gatewayclasses.gateway.networking.k8s.io") {
			t.Errorf("exit %d, stderr %q; want exit 2 naming the GatewayClasses", code, errOut)
		}
		code, out, _ := run(t, "diff", "-n", "team-a", "-f", change, "-o", "json", "--partial")
		if report := diffJSON(t, out); code == 0 || !report.Partial {
			t.Errorf("exit %d, partial %v: a partial diff must never exit 0 nor hide that it is partial", code, report.Partial)
		}
		code, out, errOut = run(t, "tree", "gateway", "web", "-n", "team-a")
		if code != 2 || out != "" || !strings.Contains(errOut, "GatewayClass internet") {
			t.Errorf("tree: exit %d, stdout %q, stderr %q; want exit 2 naming the GatewayClass", code, out, errOut)
		}
	})
}

// treeReadiness is each object of a tree's JSON as "Kind/name" -> "READY reason".
func treeReadiness(t *testing.T, out string) map[string]string {
	t.Helper()
	var tree gatewayTree
	if err := json.Unmarshal([]byte(out), &tree); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	ready := map[string]string{}
	for _, o := range tree.Objects {
		ready[o.Kind+"/"+o.Name] = o.Ready + " " + o.Reason
	}
	return ready
}

func deleteBinding(t *testing.T, admin client.Client, binding client.Object) {
	t.Helper()
	if err := admin.Delete(t.Context(), binding); err != nil {
		t.Fatal(err)
	}
}
