package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

const defaultControllerNamespace = "gatewright-system"

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
	cmd.Flags().StringVar(&opts.route, "route", "", "an HTTPRoute attached to the Gateway, as NAMESPACE/NAME")
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
		about = "HTTPRoute " + opts.route + " on " + about
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

// offlineValues computes the values of a Gateway, or of an HTTPRoute on it, from set.
func offlineValues(set *offline.Set, controllerNamespace, gateway, route string) (*translate.Result, error) {
	gwNamespace, gwName := splitName(gateway)
	gw, err := set.Gateway(gwNamespace, gwName)
	if err != nil {
		return nil, err
	}
	var r *gatewayv1.HTTPRoute
	if route != "" {
		routeNamespace, routeName := splitName(route)
		if r, err = set.HTTPRoute(routeNamespace, routeName); err != nil {
			return nil, err
		}
		if len(attach.ParentRefsTo(r, gw)) == 0 {
			return nil, fmt.Errorf("HTTPRoute %s/%s has no parentRef to Gateway %s/%s", r.Namespace, r.Name, gw.Namespace, gw.Name)
		}
	}
	snap, err := set.ForValues(controllerNamespace, gw, r)
	if err != nil {
		return nil, err
	}
	return snap.Valuing(&render.Cache{}, r), nil
}

// unusedBy are those of unused that source set.
func unusedBy(unused []values.UnusedValue, source values.Source) []values.UnusedValue {
	var out []values.UnusedValue
	for _, u := range unused {
		if u.Source == source {
			out = append(out, u)
		}
	}
	return out
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

// printProvenance prints leaves, as tables of the values (marking those among unused)
// and of the dropped values, or in format.
func printProvenance(out io.Writer, leaves []values.Leaf, unused []values.UnusedValue, format string) error {
	if format != "" {
		if leaves == nil {
			leaves = []values.Leaf{}
		}
		return printObject(out, leaves, format)
	}
	var kept, dropped []values.Leaf
	for _, leaf := range leaves {
		if leaf.DroppedBy != nil {
			dropped = append(dropped, leaf)
		} else {
			kept = append(kept, leaf)
		}
	}
	if err := printKept(out, kept, unused); err != nil {
		return err
	}
	if len(dropped) == 0 {
		return nil
	}
	fmt.Fprintln(out, "\nDropped (not in the values):")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PATH\tVALUE\tSOURCE\tAS\tLEVEL\tSTRATEGY\tREASON")
	for _, leaf := range dropped {
		raw, err := jsonText(leaf.Value)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", leaf.Path, raw, leaf.Source, leaf.As, leaf.Level, leaf.Strategy, dropReason(leaf))
	}
	return w.Flush()
}

// printKept prints the table of the leaves in the values; a row whose value is among
// unused says so in a last column, NOTE, which is there only then.
func printKept(out io.Writer, kept []values.Leaf, unused []values.UnusedValue) error {
	notes := map[string]string{}
	for _, u := range unused {
		notes[u.Path] = "unused"
		if u.Suggestion != "" {
			notes[u.Path] += " (did you mean " + u.Suggestion + "?)"
		}
	}
	// Every row ends its STRATEGY cell with a tab when there are notes, so that the
	// table aligns; the padding this leaves at the end of rows without one is trimmed.
	var table bytes.Buffer
	w := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	row := "%s\t%s\t%s\t%s\t%d\t%s\n"
	header := "PATH\tVALUE\tSOURCE\tAS\tLEVEL\tSTRATEGY"
	if len(notes) > 0 {
		row = "%s\t%s\t%s\t%s\t%d\t%s\t%s\n"
		header += "\tNOTE"
	}
	fmt.Fprintln(w, header)
	for _, leaf := range kept {
		value := "<unset>"
		if !leaf.Unset {
			raw, err := jsonText(leaf.Value)
			if err != nil {
				return err
			}
			value = string(raw)
		}
		args := []any{leaf.Path, value, leaf.Source, leaf.As, leaf.Level, leaf.Strategy}
		if len(notes) > 0 {
			args = append(args, notes[leaf.Path])
		}
		fmt.Fprintf(w, row, args...)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
		if _, err := fmt.Fprintln(out, strings.TrimRight(line, " ")); err != nil {
			return err
		}
	}
	return nil
}

// dropReason says why a dropped value is not in the values: an override took the place
// of the values below it whole, or the value's own default gave way whole.
func dropReason(leaf values.Leaf) string {
	by := leaf.DroppedBy
	if by.As == values.Override {
		return fmt.Sprintf("replaced whole by the %s override of %s (level %d)", by.Strategy, by.Source, by.Level)
	}
	return fmt.Sprintf("its %s default gave way to the %s of %s (level %d)", leaf.Strategy, by.As, by.Source, by.Level)
}
