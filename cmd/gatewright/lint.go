package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
)

type lintOptions struct {
	files  []string
	strict bool
}

func newLintCommand() *cobra.Command {
	var opts lintOptions
	cmd := &cobra.Command{
		Use:   "lint -f BLUEPRINT...",
		Short: "Check GatewayClassBlueprints for errors and risky templates",
		Long: `lint checks every GatewayClassBlueprint in the given files and folders as the controller
does before accepting it (templates and helpers parse, dependsOn names existing templates
without cycles, readyWhen compiles, valuesSchema is a valid schema), and warns where a template prints tenant
values into YAML unquoted or runs them through tpl, and where it reads a .Values path that
the valuesSchema does not have (a typo renders empty; lint suggests the key meant). It
exits 1 on an error, and with --strict on a warning too.

Each line starts with the file and line of the template text it is about, when the
blueprint's templates are YAML block scalars (template: |).`,
		Example: `  gatewright lint -f blueprints/envoy-proxy/blueprint.yaml`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLint(cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().StringSliceVarP(&opts.files, "filename", "f", nil, "YAML files or folders holding blueprints (repeatable)")
	cmd.Flags().BoolVar(&opts.strict, "strict", false, "fail on warnings too")
	_ = cmd.MarkFlagRequired("filename")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	return cmd
}

func runLint(out io.Writer, opts lintOptions) error {
	set, err := offline.Load(opts.files...)
	if err != nil {
		return err
	}
	if len(set.Blueprints) == 0 {
		return errors.New("no GatewayClassBlueprint in the input")
	}
	var failed, warned int
	for i := range set.Blueprints {
		bp := &set.Blueprints[i]
		if err := render.Validate(bp); err != nil {
			var renderErr *render.Error
			place := ""
			if errors.As(err, &renderErr) {
				place = set.Locate(bp.Name, renderErr.Template, renderErr.Line)
			}
			fmt.Fprintf(out, "%serror: %v\n", prefix(place), err)
			failed++
			continue
		}
		parsed, err := render.Parse(bp)
		if err != nil {
			return err
		}
		for _, w := range parsed.Lint() {
			fmt.Fprintf(out, "%swarning: GatewayClassBlueprint %s, %s\n", prefix(set.Locate(bp.Name, w.Template, w.Line)), bp.Name, w)
			warned++
		}
	}
	fmt.Fprintf(out, "%d blueprint(s): %d with errors, %d warning(s)\n", len(set.Blueprints), failed, warned)
	switch {
	case failed > 0:
		return fmt.Errorf("%d blueprint(s) with errors", failed)
	case opts.strict && warned > 0:
		return fmt.Errorf("%d warning(s) with --strict", warned)
	}
	return nil
}

// prefix starts a line about a place in a file, "file:line: ", as compilers do.
func prefix(place string) string {
	if place == "" {
		return ""
	}
	return place + ": "
}
