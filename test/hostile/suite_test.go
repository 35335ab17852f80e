// Package hostile attacks Gatewright as hostile tenants would, on a real kube-apiserver
// and etcd. The controller runs in-process under the least-privilege RBAC it ships with
// (config/rbac, plus the rendered kinds the operator adds, as docs/install.md says), by
// impersonating its ServiceAccount; tenants act by impersonation too, with only the
// rights docs/security.md gives them. Every spec asserts what a user would see with
// kubectl, in namespaces of its own.
package hostile

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/controllers"
	"github.com/gatewright/gatewright/test/testenv"
)

const (
	controllerNamespace = "gatewright-system"
	// controllerUser is the controller's ServiceAccount (config/rbac/service_account.yaml)
	// as the API server authenticates it.
	controllerUser = "system:serviceaccount:" + controllerNamespace + ":gatewright-controller"
	// apiServerStopTimeout is how long the API server may take to stop before it is killed.
	apiServerStopTimeout = 5 * time.Second
)

var (
	env *envtest.Environment
	// admin is the cluster operator, who also plays the infrastructure provider.
	admin    client.Client
	adminCfg *rest.Config
	// controllerCfg is what every Gatewright instance of the suite talks to the API
	// server with: the admin's connection, impersonating the controller's ServiceAccount.
	controllerCfg *rest.Config
	// gatewright is the instance every spec relies on; the specs that stop it start the
	// next one here.
	gatewright *controllerInstance
	// certDir keeps the API server's certificates across its restart.
	certDir string
)

func TestHostile(t *testing.T) {
	RegisterFailHandler(Fail)
	// Eventually and Consistently given the spec's context keep their default timeouts.
	EnforceDefaultTimeoutsWhenUsingContexts()
	SetDefaultEventuallyTimeout(20 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	SetDefaultConsistentlyDuration(2 * time.Second)
	SetDefaultConsistentlyPollingInterval(200 * time.Millisecond)
	RunSpecs(t, "Hostile tenants")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	var err error
	env, err = testenv.New()
	Expect(err).NotTo(HaveOccurred())
	// A certificate directory of our own survives an API server restart, so that every
	// client keeps trusting the server (envtest regenerates certificates in a directory
	// it created itself).
	certDir, err = os.MkdirTemp("", "gatewright-hostile-")
	Expect(err).NotTo(HaveOccurred())
	env.ControlPlane.GetAPIServer().CertDir = certDir
	// A stopping kube-apiserver waits up to its request timeout (60 s) for requests in
	// flight while Gatewright runs; past this, envtest kills it.
	env.ControlPlaneStopTimeout = apiServerStopTimeout
	adminCfg, err = env.Start()
	Expect(err).NotTo(HaveOccurred())
	admin, err = client.New(adminCfg, client.Options{Scheme: env.Scheme})
	Expect(err).NotTo(HaveOccurred())

	Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllerNamespace}})).To(Succeed())
	installControllerRBAC(ctx)
	installTenantRole(ctx)
	controllerCfg = rest.CopyConfig(adminCfg)
	controllerCfg.Impersonate = rest.ImpersonationConfig{UserName: controllerUser}
	asController := clientFor(controllerCfg)
	awaitGrant(ctx, asController, "v1", "ConfigMap", "")
	awaitGrant(ctx, asController, "gateway.networking.k8s.io/v1", "Gateway", "")
	awaitGrant(ctx, asController, "coordination.k8s.io/v1", "Lease", controllerNamespace)
	// Listeners' certificateRefs need Secrets read, and RBAC cannot grant that for some
	// Secrets only; writing them the controller may not.
	awaitGrant(ctx, asController, "v1", "Secret", "")
	Expect(asController.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: controllerNamespace, Name: "by-gatewright"}})).To(beForbidden(), "the controller must not write Secrets")

	gatewright = startController(nil)
})

var _ = AfterSuite(func() {
	if gatewright != nil {
		gatewright.kill()
	}
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
	if certDir != "" {
		Expect(os.RemoveAll(certDir)).To(Succeed())
	}
})

// renderedKinds is the ClusterRole the operator adds for what this suite's blueprints
// render (the chart's rbac.managedResources): ConfigMaps, Services, and Namespaces for
// the one blueprint that lists them in clusterScopedKinds. No Secrets.
const renderedKinds = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: gatewright-rendered-kinds}
rules:
- apiGroups: [""]
  resources: [configmaps, services, namespaces]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: gatewright-rendered-kinds}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-rendered-kinds}
subjects: [{kind: ServiceAccount, name: gatewright-controller, namespace: gatewright-system}]
`

// installControllerRBAC installs the controller's ServiceAccount, its generated
// ClusterRole and the leader-election Role from config/rbac, bound as the kustomize base
// binds them, and the ClusterRole of the rendered kinds.
func installControllerRBAC(ctx context.Context) {
	for _, file := range []string{"service_account.yaml", "role.yaml", "role_binding.yaml", "leader_election_role.yaml", "leader_election_role_binding.yaml"} {
		obj := repoObject(filepath.Join("config", "rbac", file))
		if obj.GetKind() == "Role" || obj.GetKind() == "RoleBinding" {
			obj.SetNamespace(controllerNamespace)
		}
		Expect(admin.Create(ctx, obj)).To(Succeed(), file)
	}
	for _, obj := range objects(renderedKinds, nil) {
		Expect(admin.Create(ctx, obj)).To(Succeed())
	}
}

// installTenantRole installs the tenant persona role; tenants are bound to it in their
// namespaces (newTenant).
func installTenantRole(ctx context.Context) {
	Expect(admin.Create(ctx, repoObject(filepath.Join("config", "rbac", "tenant_role.yaml")))).To(Succeed())
}

func repoObject(path string) *unstructured.Unstructured {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), path))
	Expect(err).NotTo(HaveOccurred())
	obj := &unstructured.Unstructured{}
	Expect(yaml.Unmarshal(data, &obj.Object)).To(Succeed(), path)
	return obj
}

// controllerInstance is one Gatewright process: a manager that runs every reconciler as
// the controller's ServiceAccount, in this test process.
type controllerInstance struct {
	manager ctrl.Manager
	cancel  context.CancelFunc
	stopped chan struct{}
}

// startController starts an instance; configure may change its manager options (leader
// election).
func startController(configure func(*ctrl.Options)) *controllerInstance {
	options := controllers.ManagerOptions()
	options.Metrics = metricsserver.Options{BindAddress: "0"}
	// One test process starts several instances over time, with the same controllers.
	options.Controller.SkipNameValidation = ptr.To(true)
	// Stopping is meant to be abrupt, like a killed pod: workers still busy after a
	// second are abandoned.
	options.GracefulShutdownTimeout = ptr.To(time.Second)
	if configure != nil {
		configure(&options)
	}
	mgr, err := ctrl.NewManager(controllerCfg, options)
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	Expect(controllers.Setup(ctx, mgr, controllers.Options{ControllerNamespace: controllerNamespace})).To(Succeed())
	instance := &controllerInstance{manager: mgr, cancel: cancel, stopped: make(chan struct{})}
	go func() {
		defer close(instance.stopped)
		// An abrupt stop that abandons workers is reported as an error: expected here.
		if err := mgr.Start(ctx); err != nil {
			GinkgoWriter.Printf("the Gatewright instance stopped: %v\n", err)
		}
	}()
	return instance
}

// restartController replaces the suite's instance by a new one.
func restartController() {
	gatewright.kill()
	gatewright = startController(nil)
}

// kill cancels the instance's context and waits until its manager has returned.
func (c *controllerInstance) kill() {
	c.cancel()
	Eventually(c.stopped).WithTimeout(30 * time.Second).Should(BeClosed())
}
