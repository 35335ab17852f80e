package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/controllers/manager"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// defaultControllerNamespace is the default of every --controller-namespace.
const defaultControllerNamespace = manager.DefaultControllerNamespace

type valuesOptions struct {
	files               []string
	gateway             string
	route               string
	controllerNamespace string
	output              string
	provenance          bool
	strict              bool
}

func newValuesCommand() *cobra.Command {
	opts := valuesOptions{controllerNamespace: defaultControllerNamespace}
	cmd := &cobra.Command{
		Use:   "values -f PATH... --gateway NS/NAME [--route NS/NAME]",
		Short: "Print the effective values of a Gateway or HTTPRoute, computed from YAML files",
		Long: `values computes the .Values a blueprint would render with for a Gateway (or for an
HTTPRoute attached to it), from the GatewayClassBlueprint, GatewayClasses, Gateways,
HTTPRoutes, GatewayClassConfigs and GatewayConfigs in the given files and folders. It runs
the same code as the controller. Objects without a creationTimestamp count as equally old.

With --provenance it prints, for every leaf, its value, the object that set it, whether as
default or override, the level of the precedence chain (1 blueprint ... 8 HTTPRoute; 9
and 10 are the provider levels of a route in another namespace) and the strategy of the
block that set it; then the values an Atomic or Merge block dropped, and why.

A block whose condition (when) cannot be evaluated applies (it fails closed); each such
block is named in a warning on stderr, and --strict makes that an error.`,
		Example: `  gatewright values -f samples/ --gateway team-a/web
  gatewright values -f samples/ --gateway team-a/web --provenance
  gatewright values -f samples/ --gateway team-a/web --route team-a/shop -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runValues(cmd.OutOrStdout(), cmd.ErrOrStderr(), opts)
		},
	}
	cmd.Flags().StringSliceVarP(&opts.files, "filename", "f", nil, "YAML files or folders to read (repeatable)")
	cmd.Flags().StringVar(&opts.gateway, "gateway", "", "the Gateway, as NAMESPACE/NAME")
	cmd.Flags().StringVar(&opts.route, "route", "", "a route attached to the Gateway, as [KIND/]NAMESPACE/NAME (KIND httproute, the default, grpcroute, tlsroute, tcproute or udproute)")
	cmd.Flags().StringVar(&opts.controllerNamespace, "controller-namespace", opts.controllerNamespace, "the namespace whose GatewayClassConfigs are global")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "yaml or json (default: YAML values, or a table with --provenance)")
	cmd.Flags().BoolVar(&opts.provenance, "provenance", false, "print where every value came from")
	cmd.Flags().BoolVar(&opts.strict, "strict", false, "exit non-zero when a warning is printed (a condition that failed closed)")
	_ = cmd.MarkFlagRequired("filename")
	_ = cmd.MarkFlagRequired("gateway")
	return cmd
}

func runValues(out, errOut io.Writer, opts valuesOptions) error {
	if opts.output != "" && opts.output != "yaml" && opts.output != "json" {
		return fmt.Errorf("--output must be yaml or json, not %q", opts.output)
	}
	set, err := offline.Load(opts.files...)
	if err != nil {
		return err
	}
	computed, err := offlineValues(set, opts.controllerNamespace, opts.gateway, opts.route)
	if err != nil {
		return err
	}
	if computed.Err != nil {
		return computed.Err
	}
	res := computed.Values
	about := "Gateway " + opts.gateway
	if opts.route != "" {
		kind, namespace, name, _ := splitRoute(opts.route) // offlineValues read it
		about = kind + " " + namespace + "/" + name + " on " + about
	}
	warnings := printWarnings(errOut, about, res.FailedClosedWarnings())
	if opts.provenance {
		err = printProvenance(out, res.Provenance, computed.Unused(), opts.output)
	} else {
		err = printObject(out, res.Values, opts.output)
	}
	if err != nil {
		return err
	}
	return strictError(opts.strict, warnings)
}

// offlineValues computes the values of a Gateway, or of a route on it, from set.
func offlineValues(set *offline.Set, controllerNamespace, gateway, route string) (*translate.Result, error) {
	gwNamespace, gwName := splitName(gateway)
	gw, err := set.Gateway(gwNamespace, gwName)
	if err != nil {
		return nil, err
	}
	var r routes.Route // nil for the Gateway's own values
	if route != "" {
		kind, routeNamespace, routeName, ok := splitRoute(route)
		if !ok {
			return nil, fmt.Errorf("--route %q: not [KIND/]NAMESPACE/NAME with KIND a route kind (httproute, grpcroute, tlsroute, tcproute, udproute)", route)
		}
		if r, err = set.Route(kind, routeNamespace, routeName); err != nil {
			return nil, err
		}
		if len(attach.ParentRefsTo(r, gw)) == 0 {
			return nil, fmt.Errorf("%s has no parentRef to Gateway %s/%s", routes.KeyOf(r), gw.Namespace, gw.Name)
		}
	}
	snap, err := set.ForValues(controllerNamespace, gw, r)
	if err != nil {
		return nil, err
	}
	return snap.Valuing(&render.Cache{}, r), nil
}

// splitName reads NAMESPACE/NAME; a bare NAME is in the default namespace.
func splitName(ref string) (namespace, name string) {
	if namespace, name, ok := strings.Cut(ref, "/"); ok {
		return namespace, name
	}
	return "default", ref
}

func printObject(out io.Writer, obj any, format string) error {
	var data []byte
	var err error
	if format == "json" {
		data, err = json.MarshalIndent(obj, "", "  ")
		data = append(data, '\n')
	} else {
		data, err = yaml.Marshal(obj)
	}
	if err != nil {
		return err
	}
	_, err = out.Write(data)
	return err
}

// printProvenance prints leaves in format, or as explain's tables of the values
// (marking those among unused) and of the dropped values.
func printProvenance(out io.Writer, leaves []values.Leaf, unused []values.UnusedValue, format string) error {
	if format == "" {
		return explain.WriteProvenance(out, leaves, unused)
	}
	if leaves == nil {
		leaves = []values.Leaf{}
	}
	return printObject(out, leaves, format)
}
