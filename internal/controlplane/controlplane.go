// Package controlplane runs a local kube-apiserver and etcd with the Gateway API and
// Gatewright CRDs installed. `gatewright dev` and the test suites both start it.
package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/gatewright/gatewright/config/crd"
	"github.com/gatewright/gatewright/internal/scheme"
)

// New returns a control plane, not yet started, that runs the etcd and kube-apiserver
// binaries in binDir and installs every CRD when started.
func New(binDir string) (*envtest.Environment, error) {
	crds, err := crd.All()
	if err != nil {
		return nil, fmt.Errorf("reading the built-in CRDs: %w", err)
	}
	return &envtest.Environment{
		Scheme:                scheme.New(),
		CRDs:                  crds,
		BinaryAssetsDirectory: binDir,
	}, nil
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
