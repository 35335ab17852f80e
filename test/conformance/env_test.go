//go:build conformance

package conformance

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1alpha2 "sigs.k8s.io/gateway-api/apis/v1alpha2"
	gatewayv1alpha3 "sigs.k8s.io/gateway-api/apis/v1alpha3"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	xv1alpha1 "sigs.k8s.io/gateway-api/apisx/v1alpha1"

	"github.com/gatewright/gatewright/controllers"
	"github.com/gatewright/gatewright/test/testenv"
)

const controllerNamespace = "gatewright-system"

// startCluster starts the control plane with the standard Gateway API CRDs (testenv
// installs them), the Gatewright controller restricted to the class under test, and the
// kubelet stand-in; everything stops when t ends. It returns the config for the suite.
// With perGatewayAddress, each Gateway reports an address of its own (request mode).
func startCluster(t *testing.T, perGatewayAddress bool) *rest.Config {
	env, cfg, k8s, err := testenv.Start()
	if err != nil {
		t.Fatalf("starting the control plane: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	t.Cleanup(func() {
		cancel()
		for range 2 {
			if err := <-done; err != nil {
				t.Errorf("a manager stopped: %v", err)
			}
		}
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})

	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllerNamespace}}); err != nil {
		t.Fatal(err)
	}
	if err := InstallGatewayClass(ctx, k8s, perGatewayAddress); err != nil {
		t.Fatalf("installing GatewayClass %s: %v", GatewayClassName, err)
	}

	options := controllers.ManagerOptions()
	options.Metrics = metricsserver.Options{BindAddress: "0"}
	gatewright, err := ctrl.NewManager(cfg, options)
	if err != nil {
		t.Fatal(err)
	}
	// Every class, not just GatewayClassName: some tests create GatewayClasses of their own.
	if err := controllers.Setup(ctx, gatewright, controllers.Options{ControllerNamespace: controllerNamespace}); err != nil {
		t.Fatal(err)
	}

	// The stand-in has a manager of its own: Gatewright's cache sees only the objects
	// it manages, the stand-in must see every Deployment and Pod.
	kubelet, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:     clientgoscheme.Scheme,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: ctrlConfig(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := SetupKubeletStandIn(kubelet); err != nil {
		t.Fatal(err)
	}
	for _, mgr := range []ctrl.Manager{gatewright, kubelet} {
		go func() { done <- mgr.Start(ctx) }()
	}
	return cfg
}

// suiteScheme holds every API the suite reads or writes.
func suiteScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	var errs []error
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme,
		gatewayv1.Install, gatewayv1beta1.Install, gatewayv1alpha2.Install, gatewayv1alpha3.Install, xv1alpha1.Install,
	} {
		errs = append(errs, add(s))
	}
	return s, errors.Join(errs...)
}

// suiteClient is the client the suite uses, with its own scheme.
func suiteClient(cfg *rest.Config) (client.Client, client.Options, error) {
	s, err := suiteScheme()
	if err != nil {
		return nil, client.Options{}, err
	}
	opts := client.Options{Scheme: s}
	c, err := client.New(cfg, opts)
	return c, opts, err
}

// ctrlConfig lets the stand-in reuse devcloud's controller names in a process that may
// also register them elsewhere.
func ctrlConfig() ctrlconfig.Controller {
	return ctrlconfig.Controller{SkipNameValidation: ptr.To(true)}
}
