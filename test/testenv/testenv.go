// Package testenv starts the real kube-apiserver and etcd that Gatewright's tests run
// against, with the Gateway API and Gatewright CRDs installed.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// RepoRoot is the root of the Gatewright checkout this package was compiled from.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// New returns a control plane with every CRD Gatewright needs. Start it with Start and
// stop it with Stop; one per test suite.
func New() (*envtest.Environment, error) {
	assets, err := binaryAssets()
	if err != nil {
		return nil, err
	}
	root := RepoRoot()
	return &envtest.Environment{
		Scheme: Scheme(),
		CRDDirectoryPaths: []string{
			filepath.Join(root, "config", "crd", "bases"),
			filepath.Join(root, "config", "crd", "gateway-api"),
		},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}, nil
}

// Scheme knows the Kubernetes built-in kinds, Gateway API and Gatewright.
func Scheme() *k8sruntime.Scheme {
	scheme := k8sruntime.NewScheme()
	for _, add := range []func(*k8sruntime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme,
		gatewayv1.Install,
		gatewrightv1alpha1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	return scheme
}

// binaryAssets finds etcd and kube-apiserver: KUBEBUILDER_ASSETS when set (make test
// sets it), otherwise the newest version that `make testbin` built under bin/k8s.
func binaryAssets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	dirs, err := filepath.Glob(filepath.Join(RepoRoot(), "bin", "k8s", "*", "kube-apiserver"))
	if err != nil || len(dirs) == 0 {
		return "", fmt.Errorf("no kube-apiserver under bin/k8s: run `make testbin` (or `make test`) first")
	}
	sort.Strings(dirs)
	return filepath.Dir(dirs[len(dirs)-1]), nil
}
