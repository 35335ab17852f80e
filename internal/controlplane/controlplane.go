// Package controlplane runs a local kube-apiserver and etcd with the CRDs it is given
// installed. The development commands and the test suites both start it, with the
// Gateway API and Gatewright CRDs of config/crd.
package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/gatewright/gatewright/internal/scheme"
)

// New returns a control plane, not yet started, that runs the etcd and kube-apiserver
// binaries in binDir and installs crds when started. The caller reads the CRDs
// (config/crd.All): they live with the manifests, above internal/.
func New(binDir string, crds []*apiextensionsv1.CustomResourceDefinition) *envtest.Environment {
	return &envtest.Environment{
		Scheme:                scheme.New(),
		CRDs:                  crds,
		BinaryAssetsDirectory: binDir,
	}
}

// FindBinaries returns the folder holding etcd and kube-apiserver: KUBEBUILDER_ASSETS when
// set, otherwise the newest version that `make testbin` built under <root>/bin/k8s for
// the first of roots that has one.
func FindBinaries(roots ...string) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	for _, root := range roots {
		found, _ := filepath.Glob(filepath.Join(root, "bin", "k8s", "*", "kube-apiserver"))
		if len(found) > 0 {
			sort.Strings(found)
			return filepath.Dir(found[len(found)-1]), nil
		}
	}
	return "", fmt.Errorf("no kube-apiserver found under bin/k8s and KUBEBUILDER_ASSETS is not set: run `make testbin` in the Gatewright checkout")
}
