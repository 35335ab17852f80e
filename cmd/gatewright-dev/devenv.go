package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-logr/logr"
	uberzap "go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/gatewright/gatewright/config/crd"
	"github.com/gatewright/gatewright/controllers/manager"
	"github.com/gatewright/gatewright/internal/controlplane"
	"github.com/gatewright/gatewright/internal/devcloud"
	"github.com/gatewright/gatewright/internal/scheme"
)

// fieldOwner applies the samples and the demo's files.
const fieldOwner = "gatewright-dev"

// devEnvironment is a local control plane with the Gatewright controller, and the
// simulated node and load balancers of internal/devcloud, running against it.
type devEnvironment struct {
	config     *rest.Config
	client     client.Client
	kubeconfig string

	controlPlane *envtest.Environment
	cancel       context.CancelFunc
	// done receives one result per manager (controller, simulation) when it stops.
	done     chan error
	managers int
}

type devEnvironmentOptions struct {
	// binDir holds etcd and kube-apiserver; empty finds them like the tests do.
	binDir string
	// kubeconfig is where the control plane's kubeconfig is written.
	kubeconfig string
	// simulate runs internal/devcloud next to the controller.
	simulate bool
	// logs receives the controller's log lines.
	logs io.Writer
	// errorLogs, when not nil, receives the error lines too.
	errorLogs io.Writer
	// metricsAddress is where the controller serves /metrics; "0" turns it off.
	metricsAddress string
}

// startDevEnvironment starts the control plane and the managers. The caller must call
// stop, also when ctx ends.
func startDevEnvironment(ctx context.Context, out io.Writer, opts devEnvironmentOptions) (_ *devEnvironment, err error) {
	// Before anything logs: controller-runtime drops every log line for good, with a
	// warning and a stack trace, when no logger is set 30 seconds after the process
	// started, which a slow first start of the control plane takes.
	ctrl.SetLogger(devLogger(opts.logs, opts.errorLogs))
	binDir := opts.binDir
	if binDir == "" {
		if binDir, err = controlplane.FindBinaries("."); err != nil {
			return nil, err
		}
	}
	crds, err := crd.All()
	if err != nil {
		return nil, fmt.Errorf("reading the built-in CRDs: %w", err)
	}
	controlPlane := controlplane.New(binDir, crds)
	fmt.Fprintln(out, "Starting kube-apiserver and etcd from", binDir)
	cfg, err := controlPlane.Start()
	if err != nil {
		return nil, fmt.Errorf("starting the local control plane: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	env := &devEnvironment{config: cfg, kubeconfig: opts.kubeconfig, controlPlane: controlPlane, cancel: cancel, done: make(chan error, 2)}
	defer func() {
		if err != nil {
			err = errors.Join(err, env.stop())
		}
	}()

	if err := os.MkdirAll(filepath.Dir(opts.kubeconfig), 0o700); err != nil {
		return env, err
	}
	if err := os.WriteFile(opts.kubeconfig, controlPlane.KubeConfig, 0o600); err != nil {
		return env, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	if env.client, err = client.New(cfg, client.Options{Scheme: scheme.New()}); err != nil {
		return env, err
	}
	fmt.Fprintf(out, "Control plane ready at %s with the Gateway API and Gatewright CRDs.\n", cfg.Host)

	env.run(func() error {
		return manager.Run(ctx, cfg, manager.Options{
			ControllerNamespace: manager.DefaultControllerNamespace, MetricsAddress: cmp.Or(opts.metricsAddress, "0"), ProbeAddress: "0",
		})
	})
	if opts.simulate {
		simulation, err := ctrl.NewManager(cfg, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
		if err != nil {
			return env, err
		}
		if err := devcloud.Setup(simulation); err != nil {
			return env, err
		}
		env.run(func() error { return simulation.Start(ctx) })
	}
	return env, nil
}

// devLogger writes the controller's log lines to logs, and its error lines to errorLogs
// too when that is not nil: a provider's mistake shows in the terminal of `gatewright-dev
// dev` while the start-up chatter stays in the file. Errors are one line each, without
// the stack trace zap's development mode adds, as `gatewright controller` logs them by
// default.
func devLogger(logs, errorLogs io.Writer) logr.Logger {
	opts := []zap.Opts{zap.WriteTo(logs), zap.UseDevMode(true), zap.Level(zapcore.InfoLevel), zap.StacktraceLevel(zapcore.PanicLevel)}
	if errorLogs != nil {
		encoder := &zap.KubeAwareEncoder{Encoder: zapcore.NewConsoleEncoder(uberzap.NewDevelopmentEncoderConfig())}
		terminal := zapcore.NewCore(encoder, zapcore.AddSync(errorLogs), zapcore.ErrorLevel)
		opts = append(opts, zap.RawZapOpts(uberzap.WrapCore(func(core zapcore.Core) zapcore.Core {
			return zapcore.NewTee(core, terminal)
		})))
	}
	return zap.New(opts...)
}

func (e *devEnvironment) run(manager func() error) {
	e.managers++
	go func() { e.done <- manager() }()
}

// stop stops the managers, then the control plane.
func (e *devEnvironment) stop() error {
	e.cancel()
	var errs []error
	for range e.managers {
		errs = append(errs, <-e.done)
	}
	e.managers = 0
	if err := e.controlPlane.Stop(); err != nil {
		errs = append(errs, fmt.Errorf("stopping the local control plane: %w", err))
	}
	return errors.Join(errs...)
}
