// Command gatewright is the Gatewright controller and its command-line tools.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCommand()
	if asCompletionPlugin(os.Args[0]) {
		// kubectl (1.26 and later) completes `kubectl gatewright ...` by running
		// kubectl_complete-gatewright with the words typed so far.
		root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, os.Args[1:]...))
	}
	if err := root.ExecuteContext(ctx); err != nil {
		os.Exit(exitCode(err))
	}
}
