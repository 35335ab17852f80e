package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

type treeOptions struct {
	clusterOptions
	output string
}

func newTreeCommand() *cobra.Command {
	var opts treeOptions
	cmd := &cobra.Command{
		Use:   "tree gateway|httproute NAME [-n NAMESPACE]",
		Short: "Show what a live Gateway or HTTPRoute made, and whether each object is ready",
		Long: `tree reads the Renderings in which the controller records what it applied for a Gateway
(or for an HTTPRoute on each parent Gateway) and prints them as a tree: the Gateway with
its Accepted and Programmed conditions, its GatewayClass and GatewayClassBlueprint, every
object rendered for it with the template that made it, and every HTTPRoute rendered on
it with its objects. READY is each object's readiness now (kstatus, as the controller
computes it), read from the cluster: True, False, missing, or unknown when it cannot be
read. -o wide adds the namespace, the rendered hash and the readiness the Rendering
recorded (RECORDED).

It needs read access to the Gateway or HTTPRoute, the Renderings (of every namespace,
for the HTTPRoutes on a Gateway), the GatewayClass and blueprint, and the objects.`,
		Example: `  gatewright tree gateway web -n team-a
  gatewright tree httproute shop -n team-b -o wide
  gatewright tree gateway web -n team-a -o json`,
		Args:      cobra.ExactArgs(2),
		ValidArgs: []string{"gateway", "httproute"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTree(cmd.Context(), cmd.OutOrStdout(), opts, args[0], args[1])
		},
	}
	opts.addFlags(cmd.Flags())
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "wide or json (default: a tree)")
	return cmd
}

// printableTree is a tree of either kind.
type printableTree interface {
	root() treeLine
}

func runTree(ctx context.Context, out io.Writer, opts treeOptions, kind, name string) error {
	if opts.output != "" && opts.output != "wide" && opts.output != "json" {
		return fmt.Errorf("--output must be wide or json, not %q", opts.output)
	}
	k8s, namespace, err := opts.client()
	if err != nil {
		return err
	}
	reader := newTreeReader(k8s)
	var tree printableTree
	switch kind {
	case "gateway", "gateways", "gw":
		tree, err = reader.gatewayTree(ctx, namespace, name)
	case "httproute", "httproutes":
		tree, err = reader.httpRouteTree(ctx, namespace, name)
	default:
		return fmt.Errorf("tree gateway or httproute, not %q", kind)
	}
	if err != nil {
		return err
	}
	if opts.output == "json" {
		return printObject(out, tree, "json")
	}
	return printTree(out, tree.root(), opts.output == "wide")
}
