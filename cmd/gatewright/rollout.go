package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// rolloutRefused is the exit code of a rollout command that refuses what was asked, as
// against one that failed to do it.
const rolloutRefused = 2

func newRolloutCommand() *cobra.Command {
	var opts clusterOptions
	cmd := &cobra.Command{
		Use:   "rollout status|pause|resume|promote|abort|undo BLUEPRINT",
		Short: "Watch and steer how a GatewayClassBlueprint's new revision reaches its Gateways",
		Long: `rollout shows and steers the staged rollout of a GatewayClassBlueprint: every accepted change
of its spec is a new revision, which reaches the Gateways of its classes in waves, each held
until its Gateways are healthy for a soak time, and rolled back when they are not within the
gate deadline (docs/rollout.md).

status reads the blueprint's status and its revisions; pause and resume set
spec.rollout.paused; promote and abort set the blueprint's annotations
gatewright.dev/rollout-promote and gatewright.dev/rollout-abort to the revision, which the
controller acts on (promote --force of a rolled-back revision also sets
gatewright.dev/rollout-force-promote); undo sets the spec back to an older revision's, which becomes a new
revision. They use your rights: the provider role (gatewright-provider) has what they need.
A command refuses what would do nothing or is not possible now with exit status 2; promote
and undo refuse a revision that was rolled back unless --force says to go ahead.`,
		Example: `  gatewright rollout status internet
  gatewright rollout pause internet
  gatewright rollout promote internet
  gatewright rollout undo internet --to-revision 3`,
		// Runnable, so that an unknown subcommand is an error rather than the help.
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	opts.addFlags(cmd.PersistentFlags())
	// Blueprints are cluster-scoped: the namespace flag would mean nothing here.
	_ = cmd.PersistentFlags().MarkHidden("namespace")
	cmd.AddCommand(
		newRolloutStatusCommand(&opts),
		newRolloutPauseCommand(&opts, true),
		newRolloutPauseCommand(&opts, false),
		newRolloutPromoteCommand(&opts),
		newRolloutAbortCommand(&opts),
		newRolloutUndoCommand(&opts),
	)
	return cmd
}

// refuse is the error of a rollout command that will not do what was asked.
func refuse(format string, args ...any) error {
	return &exitError{code: rolloutRefused, err: fmt.Errorf(format, args...)}
}

// getBlueprint reads the blueprint named name with the caller's rights.
func getBlueprint(ctx context.Context, k8s client.Client, name string) (*gatewrightv1alpha1.GatewayClassBlueprint, error) {
	var bp gatewrightv1alpha1.GatewayClassBlueprint
	err := k8s.Get(ctx, client.ObjectKey{Name: name}, &bp)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("GatewayClassBlueprint %s not found", name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading GatewayClassBlueprint %s: %w", name, err)
	}
	return &bp, nil
}

// blueprintClient is a client with the caller's rights; blueprints have no namespace.
func blueprintClient(opts *clusterOptions) (client.Client, error) {
	k8s, _, err := opts.client()
	return k8s, err
}
