package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gatewright/gatewright/samples"
)

type devOptions struct {
	devEnvironmentOptions
	noSamples bool
}

func newDevCommand() *cobra.Command {
	opts := devOptions{devEnvironmentOptions: devEnvironmentOptions{
		kubeconfig: filepath.Join(os.TempDir(), "gatewright-dev", "kubeconfig"),
		simulate:   true,
		logs:       os.Stderr,
	}}
	noSimulation := false
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run Gatewright on a local control plane (kube-apiserver + etcd) with its CRDs and samples",
		Long: `dev starts a local kube-apiserver and etcd, installs the Gateway API and Gatewright
CRDs and the provider samples (a blueprint, the GatewayClasses internet and internal and
their GatewayClassConfigs), writes a kubeconfig and runs the controller against it until
interrupted. Ctrl-C stops everything it started.

There is no kubelet and no cloud here. Unless --no-simulation is given, a development-only
simulation (never part of the controller) stands in for them: it reports every Deployment
as available without running Pods, and gives LoadBalancer Services an address from
198.51.100.0/24, a range reserved for documentation that routes nowhere.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.simulate = !noSimulation
			return runDev(cmd.Context(), cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.binDir, "control-plane-bin", "", "`folder` with the etcd and kube-apiserver binaries (default: $KUBEBUILDER_ASSETS, else bin/k8s/<version> built by make testbin)")
	cmd.Flags().StringVar(&opts.kubeconfig, "kubeconfig-out", opts.kubeconfig, "where to write the kubeconfig of the local control plane")
	cmd.Flags().BoolVar(&opts.noSamples, "no-samples", false, "do not install the provider samples")
	cmd.Flags().BoolVar(&noSimulation, "no-simulation", false, "do not simulate available Deployments and load-balancer addresses")
	cmd.Flags().StringVar(&opts.metricsAddress, "metrics-bind-address", "0", "address of the controller's Prometheus metrics endpoint, such as 127.0.0.1:8080 (0 disables it)")
	return cmd
}

func runDev(ctx context.Context, out io.Writer, opts devOptions) (err error) {
	env, err := startDevEnvironment(ctx, out, opts.devEnvironmentOptions)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintln(out, "Stopping the controller and the local control plane")
		err = errors.Join(err, env.stop())
	}()
	if !opts.noSamples {
		fmt.Fprintln(out, "Installing the provider samples:")
		if err := applyEmbedded(ctx, env.client, samples.Provider, out); err != nil {
			return fmt.Errorf("installing the samples: %w", err)
		}
	}
	simulation := "off (--no-simulation): Deployments never become available"
	if opts.simulate {
		simulation = "on (dev only): Deployments report available, LoadBalancer Services get 198.51.100.x"
	}
	fmt.Fprintf(out, `
The Gatewright controller is running against it (controller namespace %s).
Node and load-balancer simulation: %s.

Next steps, in another terminal:
  export KUBECONFIG=%s
  kubectl get gatewayclasses,gatewright -A
  kubectl apply -f samples/tenant/
  kubectl get gateway,deployment,service,configmap -n team-a
  go run ./cmd/gatewright explain gateway web -n team-a

Press Ctrl-C to stop.
`, defaultControllerNamespace, simulation, opts.kubeconfig)
	select {
	case <-ctx.Done():
		return nil
	case err := <-env.done:
		env.managers--
		return fmt.Errorf("a manager stopped: %w", err)
	}
}
