package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"helm.sh/helm/v3/pkg/strvals"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/manifest"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
)

type renderOptions struct {
	files               []string
	gateway             string
	controllerNamespace string
	set                 []string
	debug               bool
	strict              bool
}

func newRenderCommand() *cobra.Command {
	opts := renderOptions{controllerNamespace: defaultControllerNamespace}
	cmd := &cobra.Command{
		Use:   "render -f PATH... [--gateway NS/NAME] [--set KEY=VALUE] [-f VALUES.yaml] [--debug]",
		Short: "Print the objects Gatewright would apply, rendered from YAML files",
		Long: `render computes the values and renders the blueprint for every Gateway of a Gatewright
GatewayClass in the given files and folders (or only the one named with --gateway), and for
every HTTPRoute whose parentRefs name it, and prints the objects as one YAML stream. It runs
the same code as the controller, with every dependsOn dependency taken as ready; the status
template is not rendered. Any values or render error is printed and the command exits 1.

As with Helm, a file given with -f that holds a plain YAML mapping (no apiVersion, no kind)
is a values file, and --set sets values with Helm's syntax (a.b=c, list={x,y}, a=null
removes a key). Values files, in order, then --set, are merged over the effective values of
every Gateway and HTTPRoute as JSON merge patches, above every level of the chain, the
blueprint's overrides included; the valuesSchema is checked on the result. They show what
would render with those values: in a cluster, only policies set values.

An error in a template names the template's line and, for a blueprint read from a file,
the file's line. --debug also prints the template, or the text it rendered when the error
is about that text (invalid YAML, a refused object), numbered, with the line marked.

A block whose condition (when) cannot be evaluated applies (it fails closed); each such
block is named in a warning on stderr, and --strict makes that an error.`,
		Example: `  gatewright render -f samples/
  gatewright render -f blueprints/envoy-proxy/ --gateway team-a/web
  gatewright render -f samples/ --set replicas=2,service.type=ClusterIP --debug
  gatewright render -f blueprints/envoy-proxy/ -f values.yaml   # values.yaml: replicas: 2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRender(cmd.OutOrStdout(), cmd.ErrOrStderr(), opts)
		},
	}
	cmd.Flags().StringSliceVarP(&opts.files, "filename", "f", nil, "YAML files or folders to read, and values files (repeatable)")
	cmd.Flags().StringVar(&opts.gateway, "gateway", "", "render only this Gateway, as NAMESPACE/NAME")
	cmd.Flags().StringVar(&opts.controllerNamespace, "controller-namespace", opts.controllerNamespace, "the namespace whose GatewayClassConfigs are global")
	cmd.Flags().StringArrayVar(&opts.set, "set", nil, "set values, as Helm does: key1=val1,key2.sub=val2 (repeatable; beats values files)")
	cmd.Flags().BoolVar(&opts.debug, "debug", false, "on an error, print the template or the text it rendered, with line numbers")
	cmd.Flags().BoolVar(&opts.strict, "strict", false, "exit non-zero when a warning is printed (a condition that failed closed)")
	_ = cmd.MarkFlagRequired("filename")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	_ = cmd.RegisterFlagCompletionFunc("gateway", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return gatewayNames(opts.files), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func runRender(out, errOut io.Writer, opts renderOptions) error {
	manifests, overrides, err := readValuesFiles(opts.files)
	if err != nil {
		return err
	}
	set, err := offline.Load(manifests...)
	if err != nil {
		return err
	}
	if len(opts.set) > 0 {
		values := map[string]any{}
		for _, s := range opts.set {
			if err := strvals.ParseInto(s, values); err != nil {
				return fmt.Errorf("--set %s: %w", s, err)
			}
		}
		overrides = append(overrides, values)
	}
	set.Overrides = overrides
	only := ""
	if opts.gateway != "" {
		namespace, name := splitName(opts.gateway)
		only = namespace + "/" + name
	}
	rendered, err := set.Render(opts.controllerNamespace, only)
	if err != nil {
		return explainRenderError(errOut, set, err, opts.debug)
	}
	warnings := 0
	for _, r := range rendered {
		about := "Gateway " + r.Gateway
		if r.Route != "" {
			about = r.RouteKind + " " + r.Route + " on " + about
		}
		warnings += printWarnings(errOut, about, r.Warnings)
	}
	if err := offline.WriteStream(out, rendered); err != nil {
		return err
	}
	return strictError(opts.strict, warnings)
}

// readValuesFiles separates the values files from the paths given with -f, and reads
// them. A values file is a file named on the command line (not one found in a folder)
// that holds no Kubernetes object but a YAML mapping without apiVersion and kind: Helm's
// values.yaml. It is read as Helm reads one, the first YAML document only.
func readValuesFiles(paths []string) (manifests []string, values []map[string]any, err error) {
	for _, path := range paths {
		vals, err := readValuesFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if vals == nil {
			manifests = append(manifests, path)
			continue
		}
		values = append(values, vals)
	}
	return manifests, values, nil
}

// readValuesFile returns the values of path when it is a values file, else nil; what
// is not one is left for offline.Load to read or report.
func readValuesFile(path string) (map[string]any, error) {
	if info, err := os.Stat(path); err != nil || info.IsDir() {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if _, err := manifest.Decode(data); err == nil {
		return nil, nil
	}
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, nil
	}
	// utiljson keeps whole numbers int64, as the values the chain computes.
	var vals map[string]any
	if err := utiljson.Unmarshal(raw, &vals); err != nil || vals == nil {
		return nil, nil
	}
	if _, ok := vals["apiVersion"]; ok {
		return nil, nil
	}
	if _, ok := vals["kind"]; ok {
		return nil, nil
	}
	return vals, nil
}

// explainRenderError places a render error in the blueprint's file, when the blueprint
// came from one, and with debug prints what the error is about, numbered: the text the
// template rendered when the error is about that text, else the template.
func explainRenderError(w io.Writer, set *offline.Set, err error, debug bool) error {
	var renderErr *render.Error
	if !errors.As(err, &renderErr) {
		return err
	}
	place := set.Locate(renderErr.Blueprint, renderErr.Template, renderErr.Line)
	what := fmt.Sprintf("template %s of GatewayClassBlueprint %s", renderErr.Template, renderErr.Blueprint)
	switch {
	case debug && renderErr.Output != "":
		fmt.Fprintf(w, "The text that %s rendered:\n", what)
		printNumbered(w, renderErr.Output, renderErr.OutputLine)
	case debug && renderErr.Line > 0:
		if source := set.TemplateSource(renderErr.Blueprint, renderErr.Template); source != "" {
			fmt.Fprintf(w, "The %s:\n", what)
			printNumbered(w, source, renderErr.Line)
		}
	case renderErr.Output != "":
		err = fmt.Errorf("%w (--debug prints the rendered text)", err)
	}
	if place != "" {
		err = fmt.Errorf("%s: %w", place, err)
	}
	return err
}

// printNumbered prints text with line numbers, marking line mark.
func printNumbered(w io.Writer, text string, mark int) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	width := len(fmt.Sprint(len(lines)))
	for i, line := range lines {
		marker := " "
		if i+1 == mark {
			marker = ">"
		}
		fmt.Fprintf(w, "%s %*d | %s\n", marker, width, i+1, line)
	}
}

// gatewayNames are the Gateways in the files, as NAMESPACE/NAME, for shell completion.
func gatewayNames(files []string) []string {
	manifests, _, err := readValuesFiles(files)
	if err != nil {
		return nil
	}
	set, err := offline.Load(manifests...)
	if err != nil {
		return nil
	}
	names := make([]string, len(set.Gateways))
	for i, gw := range set.Gateways {
		names[i] = gw.Namespace + "/" + gw.Name
	}
	return names
}
