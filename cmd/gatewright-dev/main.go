// Command gatewright-dev runs Gatewright on a local control plane, for development:
// `dev` and `demo`. It is not shipped: the gatewright binary links neither the control
// plane (envtest) nor the development-only simulation (internal/devcloud).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCommand().ExecuteContext(ctx); err != nil {
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:          "gatewright-dev",
		Short:        "Run Gatewright on a local control plane (kube-apiserver + etcd), for development",
		SilenceUsage: true,
	}
	root.AddCommand(newDevCommand(), newDemoCommand())
	return root
}
