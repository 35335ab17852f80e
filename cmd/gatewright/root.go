package main

import (
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at build time by `make build`, `make install` and the Dockerfile, with
// -ldflags "-X main.version=... -X main.commit=...".
var (
	version = ""
	commit  = ""
)

func newRootCommand() *cobra.Command {
	build, _ := debug.ReadBuildInfo()
	root := &cobra.Command{
		Use:   "gatewright",
		Short: "Gateway API GatewayClasses implemented by templates",
		Long: `Gatewright implements Gateway API GatewayClasses with GatewayClassBlueprints: Helm-style
templates for the infrastructure behind each Gateway, rendered with values merged from
GatewayClassConfigs and GatewayConfigs.`,
		Version:       versionString(version, commit, build),
		SilenceUsage:  true,
		SilenceErrors: false,
	}
	root.AddCommand(newDevCommand(), newValuesCommand(), newExplainCommand(), newTreeCommand(), newDemoCommand(), newRenderCommand(), newDiffCommand(), newRolloutCommand(), newLintCommand(), newControllerCommand())
	return root
}

// versionString is what --version prints. The Makefile stamps version and commit; a
// binary built without it (`go install ./cmd/gatewright`, `go install ...@v0.1.0`) still
// knows the module version and the commit it was built from, which the go command records
// in the build information.
func versionString(version, commit string, build *debug.BuildInfo) string {
	var revision string
	var modified bool
	if build != nil {
		if version == "" && build.Main.Version != "" && build.Main.Version != "(devel)" {
			version = build.Main.Version
		}
		for _, s := range build.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if commit == "" && revision != "" {
		commit = revision[:min(len(revision), 12)]
		if modified {
			commit += "-dirty"
		}
	}
	if version == "" {
		version = "dev"
	}
	if commit == "" {
		commit = "unknown"
	}
	return version + " (commit " + commit + ")"
}
