package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/test/testenv"
)

// tenantCluster starts a control plane for the test, with the tenant role and manifest
// created in it. It returns the admin's config and client, and kubeconfigFor, which
// writes a kubeconfig that impersonates user ("" for the admin) and returns its path.
func tenantCluster(t *testing.T, manifest string) (*rest.Config, client.Client, func(user string) string) {
	t.Helper()
	env, cfg, admin, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	tenantRole, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "rbac", "tenant_role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	createAll(t, admin, string(tenantRole)+"\n---\n"+manifest)
	dir := t.TempDir()
	kubeconfigFor := func(user string) string {
		path := filepath.Join(dir, "user-"+user)
		writeKubeconfig(t, env.KubeConfig, path, user)
		return path
	}
	return cfg, admin, kubeconfigFor
}

func createAll(t *testing.T, c client.Client, manifest string) {
	t.Helper()
	for _, doc := range strings.Split(manifest, "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			t.Fatal(err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
}

// writeKubeconfig writes the admin's kubeconfig to path, impersonating user if not "".
func writeKubeconfig(t *testing.T, adminConfig []byte, path, user string) {
	t.Helper()
	config, err := clientcmd.Load(adminConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range config.AuthInfos {
		auth.Impersonate = user
	}
	if err := clientcmd.WriteToFile(*config, path); err != nil {
		t.Fatal(err)
	}
}
