// Package install proves the two ways of installing Gatewright, the Helm chart and the
// kustomize bases in config/, against a real kube-apiserver: what they render, that the API
// server accepts it, and that the persona roles grant what docs/install.md says.
package install

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/gatewright/gatewright/test/testenv"
)

var (
	env *envtest.Environment
	cfg *rest.Config
	k8s client.Client
)

// chartDir is the Helm chart under test.
var chartDir = filepath.Join(testenv.RepoRoot(), "charts", "gatewright")

func TestInstall(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Install")
}

var _ = BeforeSuite(func() {
	var err error
	env, cfg, k8s, err = testenv.Start()
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

// restrictedPodSecurity makes the API server refuse pods that break the restricted Pod
// Security Standard, as a cautious cluster operator configures the controller namespace.
var restrictedPodSecurity = map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}

// newNamespace gives each spec a namespace of its own, with the given labels.
func newNamespace(ctx context.Context, prefix string, labels map[string]string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: labels}}
	Expect(k8s.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(k8s.Delete(ctx, ns))).To(Succeed()) })
	return ns.Name
}
