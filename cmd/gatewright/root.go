package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

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
	root.AddCommand(newValuesCommand(), newExplainCommand(), newTreeCommand(), newRenderCommand(), newDiffCommand(), newRolloutCommand(), newLintCommand(), newControllerCommand())
	addLiveCompletion(root)
	if asKubectlPlugin(os.Args[0]) {
		speakAsPlugin(root)
	}
	return root
}

// pluginName is the binary's name as a kubectl plugin: kubectl runs kubectl-gatewright
// for `kubectl gatewright ...`, and kubectl_complete-gatewright (which runs
// `kubectl-gatewright __complete ...`) to complete it. `make install` links both to
// gatewright.
const pluginName = "kubectl-gatewright"

// asKubectlPlugin tells whether the binary runs as kubectl's plugin, by the name it was
// run by.
func asKubectlPlugin(arg0 string) bool {
	return binaryName(arg0) == pluginName || asCompletionPlugin(arg0)
}

// asCompletionPlugin tells whether kubectl runs the binary to complete the plugin.
func asCompletionPlugin(arg0 string) bool {
	return binaryName(arg0) == "kubectl_complete-gatewright"
}

func binaryName(arg0 string) string {
	return strings.TrimSuffix(filepath.Base(arg0), ".exe")
}

// speakAsPlugin makes the usage lines, examples and completion scripts of every command
// say `kubectl gatewright`, which is what the user typed.
func speakAsPlugin(root *cobra.Command) {
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = "kubectl gatewright"
	for _, cmd := range allCommands(root) {
		cmd.Example = strings.ReplaceAll(cmd.Example, "  gatewright ", "  kubectl gatewright ")
	}
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
