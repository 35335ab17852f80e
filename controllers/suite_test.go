package controllers_test

import (
	"context"
	"net"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/gatewright/gatewright/controllers"
	"github.com/gatewright/gatewright/test/testenv"
)

const controllerNamespace = "gatewright-system"

var (
	env    *envtest.Environment
	cfg    *rest.Config
	k8s    client.Client
	cancel context.CancelFunc
	// managerClient reads through the cache of the controller under test.
	managerClient client.Client
	// metricsAddress is where the controller under test serves /metrics.
	metricsAddress string
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(20 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	SetDefaultConsistentlyDuration(2 * time.Second)
	RunSpecs(t, "Controllers")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	var err error
	env, cfg, k8s, err = testenv.Start()
	Expect(err).NotTo(HaveOccurred())
	Expect(k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllerNamespace}})).To(Succeed())

	options := controllers.ManagerOptions()
	metricsAddress = freeLocalAddress()
	options.Metrics = metricsserver.Options{BindAddress: metricsAddress}
	mgr, err := ctrl.NewManager(cfg, options)
	Expect(err).NotTo(HaveOccurred())
	managerClient = mgr.GetClient()
	var ctx context.Context
	ctx, cancel = context.WithCancel(context.Background())
	// Routes of 256 KiB together per Gateway, so that a spec can pass the bound with a few
	// large routes; every other spec's routes take a few kilobytes.
	Expect(controllers.Setup(ctx, mgr, controllers.Options{ControllerNamespace: controllerNamespace, RouteLimits: suiteRouteLimits, MaxRenderedBytesPerNamespace: suiteNamespaceBytes})).To(Succeed())
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
})

// freeLocalAddress returns a local address whose port nobody listens on.
func freeLocalAddress() string {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer listener.Close()
	return listener.Addr().String()
}

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})
