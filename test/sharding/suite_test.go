// Package sharding runs two Gatewright instances on one real kube-apiserver, each
// restricted to its own GatewayClasses as two Deployments would be, with leader election,
// and proves that they split the work without fighting over any object.
package sharding

import (
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"
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

const controllerNamespace = "gatewright-system"

// The two instances. Each writes with its own user agent, which the API server records as
// the manager of the fields it writes. Class gamma is listed by neither.
var shards = []struct {
	userAgent string
	options   controllers.Options
}{
	{"shard-alpha", controllers.Options{ControllerNamespace: controllerNamespace, GatewayClasses: []string{"alpha"}}},
	{"shard-beta", controllers.Options{ControllerNamespace: controllerNamespace, GatewayClasses: []string{"beta"}}},
}

// blueprint renders a ConfigMap per Gateway naming its class, and one per route and
// parent Gateway.
const blueprint = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: shared}
spec:
  values:
    default: {greeting: hello, timeout: 15s, replicas: 1}
  gatewayTemplate:
    resourceTemplates:
    - name: config
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .Gateway.metadata.name }}-config}
        data:
          greeting: {{ .Values.greeting | quote }}
          replicas: {{ .Values.replicas | quote }}
          port: {{ .Values.port | quote }}
          class: {{ .GatewayClass.metadata.name | quote }}
  httpRouteTemplate:
    resourceTemplates:
    - name: route-config
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .HTTPRoute.metadata.name }}-on-{{ .Gateway.metadata.name }}}
        data: {timeout: {{ .Values.timeout | quote }}}
`

var (
	env    *envtest.Environment
	k8s    client.Client
	cancel context.CancelFunc
)

func TestSharding(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(20 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	SetDefaultConsistentlyDuration(3 * time.Second)
	RunSpecs(t, "Sharding by GatewayClass")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	var err error
	var cfg *rest.Config
	env, cfg, k8s, err = testenv.Start()
	Expect(err).NotTo(HaveOccurred())
	ctx := context.Background()
	Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllerNamespace}})).To(Succeed())
	apply(ctx, "", blueprint)
	for _, class := range []string{"alpha", "beta", "gamma"} {
		apply(ctx, "", `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: `+class+`}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: shared}
`)
	}

	ctx, cancel = context.WithCancel(ctx)
	for _, shard := range shards {
		shardCfg := rest.CopyConfig(cfg)
		shardCfg.UserAgent = shard.userAgent
		options := controllers.ManagerOptions()
		options.Metrics = metricsserver.Options{BindAddress: "0"}
		options.LeaderElection = true
		options.LeaderElectionID = shard.options.LeaderElectionID()
		options.LeaderElectionNamespace = controllerNamespace
		options.LeaderElectionReleaseOnCancel = true
		// Two instances in one process: their controllers share names.
		options.Controller.SkipNameValidation = ptr.To(true)
		mgr, err := ctrl.NewManager(shardCfg, options)
		Expect(err).NotTo(HaveOccurred())
		Expect(controllers.Setup(ctx, mgr, shard.options)).To(Succeed())
		go func() {
			defer GinkgoRecover()
			Expect(mgr.Start(ctx)).To(Succeed())
		}()
	}
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

// newNamespace gives each spec a namespace of its own.
func newNamespace(ctx context.Context) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns-" + rand.String(6)}}
	Expect(k8s.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// apply creates or updates the objects of a YAML stream, after replacing NAMESPACE.
func apply(ctx context.Context, namespace, manifest string) {
	for _, doc := range strings.Split(strings.ReplaceAll(manifest, "NAMESPACE", namespace), "\n---\n") {
		obj := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal([]byte(doc), &obj.Object)).To(Succeed())
		Expect(k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("test"), client.ForceOwnership)).To(Succeed(), doc)
	}
}
