package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

type treeOptions struct {
	clusterOptions
	output  string
	watch   bool
	partial bool
}

// treeWatchInterval is how often --watch reads the tree again.
var treeWatchInterval = 2 * time.Second

func newTreeCommand() *cobra.Command {
	var opts treeOptions
	cmd := &cobra.Command{
		Use:   "tree gateway|httproute|grpcroute|tlsroute|tcproute|udproute NAME [-n NAMESPACE]",
		Short: "Show what a live Gateway or route made, and whether each object is ready",
		Long: `tree reads the Renderings in which the controller records what it applied for a Gateway
(or for a route of any kind on each parent Gateway) and prints them as a tree: the Gateway with
its Accepted and Programmed conditions, its GatewayClass and GatewayClassBlueprint (with
the blueprint revision the Gateway's objects were rendered from, Revision=N, and the one
a rollout assigned it when that differs, Target=M), every
object rendered for it with the template that made it, and every route rendered on
it with its objects. READY is each object's readiness now (kstatus, as the controller
computes it: by the readyWhen of the template the Rendering says made it, in the blueprint
revision that rendered it, else kstatus), read from the cluster: True, False, missing, or
unknown when it cannot be read or judged (the blueprint or its revision cannot be read),
with the reason. The template is Gatewright's record, never the object's own labels. -o wide adds the namespace, the rendered hash and the readiness the Rendering
recorded (RECORDED). An object that is not ready says why in STATUS (kstatus's
message); a Gateway with nothing rendered says why under the tree (its conditions).
--watch prints the tree again whenever it changes, until interrupted.

It reads with your rights: the Gateway or HTTPRoute, its Renderings, the GatewayClass,
blueprint and its revisions, and the objects (docs/install.md lists a tenant's grants).
The HTTPRoutes on a Gateway are found by their Renderings, in every namespace, or, for a
caller who may list them only in the Gateway's namespace, there: all of them when the
Gateway takes routes of its own namespace only. When the Gateway takes routes from other
namespaces and the caller may not list their Renderings, or a read the tree starts from is
refused, tree names what it could not read and exits 2; with --partial it prints what it
could read, marked PARTIAL (with -o json, "partial": true and "unread"), and still exits 2.`,
		Example: `  gatewright tree gateway web -n team-a
  gatewright tree httproute shop -n team-b -o wide
  gatewright tree gateway web -n team-a -o json
  gatewright tree gateway web -n team-a --watch`,
		Args:      cobra.ExactArgs(2),
		ValidArgs: []string{"gateway", "httproute", "grpcroute", "tlsroute", "tcproute", "udproute"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return failClosed(runTree(cmd.Context(), cmd.OutOrStdout(), opts, args[0], args[1]))
		},
	}
	opts.addFlags(cmd.Flags())
	cmd.Flags().BoolVar(&opts.partial, "partial", false, "when a read is refused, print what can be read, marked partial (exit 2)")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "wide or json (default: a tree)")
	cmd.Flags().BoolVarP(&opts.watch, "watch", "w", false, "print the tree again whenever it changes")
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
	if _, isRoute := routeKindOf(kind); !isRoute && kind != "gateway" && kind != "gateways" && kind != "gw" {
		return fmt.Errorf("tree gateway or a route (httproute, grpcroute, tlsroute, tcproute, udproute), not %q", kind)
	}
	k8s, namespace, err := opts.client()
	if err != nil {
		return err
	}
	reader := newTreeReader(k8s, opts.partial)
	partial := false
	show := func() (string, error) {
		var b strings.Builder
		var err error
		partial, err = printTreeOf(ctx, &b, reader, opts.output, kind, namespace, name)
		return b.String(), err
	}
	if !opts.watch {
		text, err := show()
		if err != nil {
			return err
		}
		if _, err = io.WriteString(out, text); err != nil || !partial {
			return err
		}
		return &exitError{code: exitUnread, err: errors.New("the tree is partial: what could not be read is named in it"), silent: true}
	}
	return watchTree(ctx, out, show)
}

// printTreeOf reads the tree of the Gateway or HTTPRoute and prints it in format. It
// tells whether the tree is partial.
func printTreeOf(ctx context.Context, out io.Writer, reader treeReader, format, kind, namespace, name string) (bool, error) {
	var tree printableTree
	var err error
	if routeKind, isRoute := routeKindOf(kind); isRoute {
		tree, err = reader.routeTree(ctx, routeKind, namespace, name)
	} else {
		tree, err = reader.gatewayTree(ctx, namespace, name)
	}
	if err != nil {
		return false, err
	}
	gw, isGateway := tree.(*gatewayTree)
	partial := isGateway && gw.Partial
	if format == "json" {
		return partial, printObject(out, tree, "json")
	}
	if err := printTree(out, tree.root(), format == "wide"); err != nil {
		return partial, err
	}
	if isGateway && gw.NotRendered != "" {
		if _, err = fmt.Fprintf(out, "\nNothing is rendered for Gateway %s/%s: %s\n", namespace, name, gw.NotRendered); err != nil {
			return partial, err
		}
	}
	if partial {
		_, err = fmt.Fprintf(out, "\nPARTIAL: cannot read %s\n", strings.Join(gw.Unread, "; cannot read "))
	}
	return partial, err
}

// watchTree prints what show returns, then again each time it changes, until ctx ends.
// An error is printed as the tree would be, since the next read may succeed.
func watchTree(ctx context.Context, out io.Writer, show func() (string, error)) error {
	previous := ""
	for first := true; ; first = false {
		text, err := show()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			text = "error: " + err.Error() + "\n"
		}
		if text != previous {
			if !first {
				text = "\n" + text
			}
			if _, err := io.WriteString(out, text); err != nil {
				return err
			}
			previous = strings.TrimPrefix(text, "\n")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(treeWatchInterval):
		}
	}
}
