// Package testenv starts the real kube-apiserver and etcd that Gatewright's test suites
// run against, with the Gateway API and Gatewright CRDs installed.
package testenv

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/gatewright/gatewright/config/crd"
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
	crds, err := crd.All()
	if err != nil {
		return nil, fmt.Errorf("reading the built-in CRDs: %w", err)
	}
	return controlplane.New(bin, crds), nil
}

// Start starts the control plane of one test suite and returns it with its config and a
// client; the suite stops it with env.Stop.
func Start() (*envtest.Environment, *rest.Config, client.Client, error) {
	env, err := New()
	if err != nil {
		return nil, nil, nil, err
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, nil, nil, err
	}
	k8s, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		return nil, nil, nil, errors.Join(err, env.Stop())
	}
	return env, cfg, k8s, nil
}
