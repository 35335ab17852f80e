// Package testenv starts the real kube-apiserver and etcd that Gatewright's test suites
// run against, with the Gateway API and Gatewright CRDs installed.
package testenv

import (
	"path/filepath"
	"runtime"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/gatewright/gatewright/internal/controlplane"
)

// RepoRoot is the root of the Gatewright checkout this package was compiled from.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// New returns the control plane for one test suite, not yet started.
func New() (*envtest.Environment, error) {
	bin, err := controlplane.FindBinaries(RepoRoot())
	if err != nil {
		return nil, err
	}
	return controlplane.New(bin)
}
