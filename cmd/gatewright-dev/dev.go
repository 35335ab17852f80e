package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatewright/gatewright/controllers/manager"
	"github.com/gatewright/gatewright/internal/manifest"
	"github.com/gatewright/gatewright/samples"
)

type devOptions struct {
	devEnvironmentOptions
	noSamples bool
	logFile   string
	// gatewright is how the printed next steps call gatewright (see gatewrightCommand).
	gatewright string
}

func newDevCommand() *cobra.Command {
	scratch := filepath.Join(os.TempDir(), "gatewright-dev")
	opts := devOptions{
		devEnvironmentOptions: devEnvironmentOptions{kubeconfig: filepath.Join(scratch, "kubeconfig"), simulate: true},
		logFile:               filepath.Join(scratch, "controller.log"),
	}
	noSimulation := false
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run Gatewright on a local control plane (kube-apiserver + etcd) with its CRDs and samples",
		Long: `dev starts a local kube-apiserver and etcd, installs the Gateway API and Gatewright
CRDs and the provider samples (a blueprint, the GatewayClasses internet and internal and
their GatewayClassConfigs), writes a kubeconfig and runs the controller against it until
interrupted. Ctrl-C stops everything it started.

The controller's log goes to --log-file; its errors are also printed here, one line each.
Once the samples' GatewayClasses are accepted, dev prints what to try next.

There is no kubelet and no cloud here. Unless --no-simulation is given, a development-only
simulation (never part of the controller) stands in for them: it reports every Deployment
as available without running Pods, and gives LoadBalancer Services an address from
198.51.100.0/24, a range reserved for documentation that routes nowhere.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.simulate = !noSimulation
			opts.gatewright = gatewrightCommand()
			return runDev(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.binDir, "control-plane-bin", "", "`folder` with the etcd and kube-apiserver binaries (default: $KUBEBUILDER_ASSETS, else bin/k8s/<version> built by make testbin)")
	cmd.Flags().StringVar(&opts.kubeconfig, "kubeconfig-out", opts.kubeconfig, "where to write the kubeconfig of the local control plane")
	cmd.Flags().StringVar(&opts.logFile, "log-file", opts.logFile, "where to write the controller's log (- for standard error)")
	cmd.Flags().BoolVar(&opts.noSamples, "no-samples", false, "do not install the provider samples")
	cmd.Flags().BoolVar(&noSimulation, "no-simulation", false, "do not simulate available Deployments and load-balancer addresses")
	cmd.Flags().StringVar(&opts.metricsAddress, "metrics-bind-address", "0", "address of the controller's Prometheus metrics endpoint, such as 127.0.0.1:8080 (0 disables it)")
	return cmd
}

// sampleClasses are the GatewayClasses of the provider samples.
var sampleClasses = []string{"internet", "internal"}

func runDev(ctx context.Context, out, errOut io.Writer, opts devOptions) (err error) {
	logDestination := opts.logFile
	if opts.logFile == "-" {
		opts.logs, logDestination = errOut, "standard error"
	} else {
		logs, err := createLogFile(opts.logFile)
		if err != nil {
			return err
		}
		defer logs.Close()
		opts.logs, opts.errorLogs = logs, errOut
	}
	env, err := startDevEnvironment(ctx, out, opts.devEnvironmentOptions)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintln(out, "Stopping the controller and the local control plane")
		err = errors.Join(err, env.stop())
	}()
	fmt.Fprintf(out, "The Gatewright controller is running against it (controller namespace %s), logging to %s.\n", manager.DefaultControllerNamespace, logDestination)
	if !opts.noSamples {
		fmt.Fprintln(out, "Installing the provider samples:")
		if err := manifest.ApplyAll(ctx, env.client, samples.Provider, fieldOwner, out); err != nil {
			return fmt.Errorf("installing the samples: %w", err)
		}
		// The controller has started once it accepts the samples' classes: the next steps
		// then come after anything it prints while starting.
		accepted := make(chan error, 1)
		waiting, stopWaiting := context.WithCancel(ctx)
		defer stopWaiting()
		go func() { accepted <- awaitSampleClasses(waiting, env, out) }()
		select {
		case err := <-accepted:
			if err != nil {
				return fmt.Errorf("%w (see the controller's log, %s)", err, logDestination)
			}
		case err := <-env.done:
			env.managers--
			return fmt.Errorf("a manager stopped: %w", err)
		}
	}
	fmt.Fprint(out, nextSteps(opts))
	select {
	case <-ctx.Done():
		return nil
	case err := <-env.done:
		env.managers--
		return fmt.Errorf("a manager stopped: %w", err)
	}
}

// awaitSampleClasses waits until the controller accepts the samples' GatewayClasses,
// and says so.
func awaitSampleClasses(ctx context.Context, env *devEnvironment, out io.Writer) error {
	d := &demo{env: env, timeout: time.Minute}
	for _, class := range sampleClasses {
		seen, err := d.await(ctx, d.classAccepted(class))
		if err != nil {
			return fmt.Errorf("GatewayClass %s: %w", class, err)
		}
		fmt.Fprintf(out, "  GatewayClass %s: %s\n", class, seen)
	}
	return nil
}

// createLogFile creates (or empties) the file, and its folder.
func createLogFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return os.Create(path)
}

// nextSteps is what dev prints last: what to try, as commands to paste into another
// terminal as they are.
func nextSteps(opts devOptions) string {
	simulation := "off (--no-simulation): Deployments never become available"
	if opts.simulate {
		simulation = "on (dev only): Deployments report available, LoadBalancer Services get 198.51.100.x"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nNode and load-balancer simulation: %s.\n\nNext steps, in another terminal:\n", simulation)
	if opts.gatewright != "gatewright" {
		fmt.Fprintf(&b, "  export PATH=%q   # the gatewright that runs here\n", filepath.Dir(opts.gatewright)+":$PATH")
	}
	fmt.Fprintf(&b, "  export KUBECONFIG=%s\n", opts.kubeconfig)
	b.WriteString("  kubectl get gatewayclasses,gatewright -A\n")
	if opts.noSamples {
		b.WriteString("  kubectl apply -f samples/namespaces.yaml -f samples/provider/\n")
	}
	b.WriteString(`  kubectl apply -f samples/tenant/
  kubectl get gateway,deployment,service,configmap -n team-a
  gatewright explain gateway web -n team-a
  gatewright tree gateway web -n team-a

Press Ctrl-C to stop.
`)
	return b.String()
}

// gatewrightCommand is how the next steps call gatewright: the one beside this binary
// (`make run` builds both into bin/), so that they run the gatewright of this checkout:
// "gatewright" when that is what the PATH finds, else its path, which nextSteps puts
// first on the PATH. Without one beside it (`go run`), "gatewright": the PATH's.
func gatewrightCommand() string {
	self, err := os.Executable()
	if err != nil {
		return "gatewright"
	}
	beside := filepath.Join(filepath.Dir(self), "gatewright")
	if _, err := os.Stat(beside); err != nil {
		return "gatewright"
	}
	if onPath, err := exec.LookPath("gatewright"); err == nil && sameFile(onPath, beside) {
		return "gatewright"
	}
	return beside
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
