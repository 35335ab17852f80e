package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = "unknown"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "gatewright",
		Short: "Gateway API GatewayClasses implemented by templates",
		Long: `Gatewright implements Gateway API GatewayClasses with GatewayClassBlueprints: Helm-style
templates for the infrastructure behind each Gateway, rendered with values merged from
GatewayClassConfigs and GatewayConfigs.`,
		Version:       fmt.Sprintf("%s (commit %s)", version, commit),
		SilenceUsage:  true,
		SilenceErrors: false,
	}
	root.AddCommand(newDevCommand(), newValuesCommand(), newExplainCommand(), newTreeCommand(), newDemoCommand(), newRenderCommand(), newLintCommand(), newControllerCommand())
	return root
}
