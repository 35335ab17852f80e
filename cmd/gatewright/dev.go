package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/controlplane"
	"github.com/gatewright/gatewright/internal/manifest"
	"github.com/gatewright/gatewright/samples"
)

type devOptions struct {
	binDir     string
	kubeconfig string
	noSamples  bool
}

func newDevCommand() *cobra.Command {
	opts := devOptions{kubeconfig: filepath.Join(os.TempDir(), "gatewright-dev", "kubeconfig")}
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run Gatewright on a local control plane (kube-apiserver + etcd) with its CRDs and samples",
		Long: `dev starts a local kube-apiserver and etcd, installs the Gateway API and Gatewright
CRDs and the provider samples (a blueprint, the GatewayClasses internet and internal and
their GatewayClassConfigs), writes a kubeconfig and runs the controller against it until
interrupted. Ctrl-C stops everything it started.

There is no kubelet: Pods never run, and nothing assigns addresses to LoadBalancer Services.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDev(cmd.Context(), cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.binDir, "control-plane-bin", "", "folder with the etcd and kube-apiserver binaries (default: $KUBEBUILDER_ASSETS, else bin/k8s/<version> from `make testbin`)")
	cmd.Flags().StringVar(&opts.kubeconfig, "kubeconfig-out", opts.kubeconfig, "where to write the kubeconfig of the local control plane")
	cmd.Flags().BoolVar(&opts.noSamples, "no-samples", false, "do not install the provider samples")
	return cmd
}

func runDev(ctx context.Context, out io.Writer, opts devOptions) (err error) {
	binDir := opts.binDir
	if binDir == "" {
		if binDir, err = controlplane.FindBinaries("."); err != nil {
			return err
		}
	}
	env, err := controlplane.New(binDir)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Starting kube-apiserver and etcd from", binDir)
	cfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("starting the local control plane: %w", err)
	}
	defer func() {
		fmt.Fprintln(out, "Stopping the local control plane")
		if stopErr := env.Stop(); stopErr != nil && err == nil {
			err = fmt.Errorf("stopping the local control plane: %w", stopErr)
		}
	}()

	if err := os.MkdirAll(filepath.Dir(opts.kubeconfig), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(opts.kubeconfig, env.KubeConfig, 0o600); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	fmt.Fprintf(out, "Control plane ready at %s with the Gateway API and Gatewright CRDs.\n", cfg.Host)

	if !opts.noSamples {
		k8s, err := client.New(cfg, client.Options{Scheme: env.Scheme})
		if err != nil {
			return err
		}
		if err := applyEmbedded(ctx, k8s, samples.Provider, out); err != nil {
			return fmt.Errorf("installing the samples: %w", err)
		}
	}

	controllerDone := make(chan error, 1)
	go func() {
		controllerDone <- runController(ctx, cfg, controllerOptions{
			controllerNamespace: defaultControllerNamespace, metricsAddress: "0", probeAddress: "0",
		})
	}()

	fmt.Fprintf(out, `
The Gatewright controller is running against it (controller namespace %s).

Next steps, in another terminal:
  export KUBECONFIG=%s
  kubectl get gatewayclasses,gatewright -A
  kubectl apply -f samples/tenant/
  kubectl get gateway,configmap,service -n team-a

Press Ctrl-C to stop.
`, defaultControllerNamespace, opts.kubeconfig)
	select {
	case <-ctx.Done():
		return <-controllerDone
	case err := <-controllerDone:
		return fmt.Errorf("the controller stopped: %w", err)
	}
}

// applyEmbedded applies every object of every YAML file in fsys, in file name order.
func applyEmbedded(ctx context.Context, k8s client.Client, fsys fs.FS, out io.Writer) error {
	return fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		objs, err := manifest.Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, obj := range objs {
			if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("gatewright-dev"), client.ForceOwnership); err != nil {
				return fmt.Errorf("%s: %s %s: %w", path, obj.GetKind(), obj.GetName(), err)
			}
			fmt.Fprintf(out, "  applied %s %s\n", obj.GetKind(), strings.TrimPrefix(client.ObjectKeyFromObject(obj).String(), "/"))
		}
		return nil
	})
}
