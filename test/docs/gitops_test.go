package docs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/test/testenv"
)

// TestInstallShowsTheShippedFluxChecks: the Kustomization install.md shows a Flux user
// holds config/flux/healthcheckexprs.yaml as it is, so what a reader copies from the page
// is what internal/summary's tests judge with Flux's own evaluator.
func TestInstallShowsTheShippedFluxChecks(t *testing.T) {
	root := testenv.RepoRoot()
	var shown struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Spec       struct {
			HealthCheckExprs []any `json:"healthCheckExprs"`
		} `json:"spec"`
	}
	block := yamlAfter(t, filepath.Join(root, "docs", "install.md"), "tenant's Kustomization with them")
	if err := yaml.Unmarshal([]byte(block), &shown); err != nil {
		t.Fatalf("install.md's Kustomization does not parse: %v", err)
	}
	if shown.APIVersion != "kustomize.toolkit.fluxcd.io/v1" || shown.Kind != "Kustomization" {
		t.Errorf("install.md shows a %s %s, want a kustomize.toolkit.fluxcd.io/v1 Kustomization", shown.APIVersion, shown.Kind)
	}
	raw, err := os.ReadFile(filepath.Join(root, "config", "flux", "healthcheckexprs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var shipped []any
	if err := yaml.Unmarshal(raw, &shipped); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(shipped, shown.Spec.HealthCheckExprs); diff != "" {
		t.Errorf("install.md's healthCheckExprs differ from config/flux/healthcheckexprs.yaml (-shipped +install.md):\n%s", diff)
	}
}
