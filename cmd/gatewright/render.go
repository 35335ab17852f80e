package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gatewright/gatewright/internal/offline"
)

type renderOptions struct {
	files               []string
	gateway             string
	controllerNamespace string
}

func newRenderCommand() *cobra.Command {
	opts := renderOptions{controllerNamespace: defaultControllerNamespace}
	cmd := &cobra.Command{
		Use:   "render -f PATH... [--gateway NS/NAME]",
		Short: "Print the objects Gatewright would apply, rendered from YAML files",
		Long: `render computes the values and renders the blueprint for every Gateway of a Gatewright
GatewayClass in the given files and folders (or only the one named with --gateway), and for
every HTTPRoute whose parentRefs name it, and prints the objects as one YAML stream. It runs
the same code as the controller, with every dependsOn dependency taken as ready; the status
template is not rendered. Any values or render error is printed and the command exits 1.`,
		Example: `  gatewright render -f samples/
  gatewright render -f blueprints/envoy-proxy/ -f my-gateway.yaml --gateway team-a/web`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRender(cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().StringSliceVarP(&opts.files, "filename", "f", nil, "YAML files or folders to read (repeatable)")
	cmd.Flags().StringVar(&opts.gateway, "gateway", "", "render only this Gateway, as NAMESPACE/NAME")
	cmd.Flags().StringVar(&opts.controllerNamespace, "controller-namespace", opts.controllerNamespace, "the namespace whose GatewayClassConfigs are global")
	_ = cmd.MarkFlagRequired("filename")
	return cmd
}

func runRender(out io.Writer, opts renderOptions) error {
	set, err := offline.Load(opts.files...)
	if err != nil {
		return err
	}
	only := ""
	if opts.gateway != "" {
		namespace, name := splitName(opts.gateway)
		only = namespace + "/" + name
	}
	rendered, err := set.Render(opts.controllerNamespace, only)
	if err != nil {
		return err
	}
	return offline.WriteStream(out, rendered)
}
