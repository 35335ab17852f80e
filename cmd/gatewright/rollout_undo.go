package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
)

func newRolloutUndoCommand(opts *clusterOptions) *cobra.Command {
	var to int64
	cmd := &cobra.Command{
		Use:   "undo BLUEPRINT [--to-revision N]",
		Short: "Set the blueprint's spec back to an older revision's",
		Long: `undo sets the blueprint's spec to that of revision N, keeping its spec.rollout. By default N
is the revision the Gateways run when the newest one has not reached them all
(status.currentRevision, while a rollout is under way or after it was rolled back), else the
newest revision before it that still exists.

The spec then differs from the newest revision's, so the controller makes it a new revision,
which rolls out like any change, in waves. To have it on every Gateway at once, promote it
once its rollout has started: gatewright rollout promote BLUEPRINT.

undo writes with the resourceVersion it read: when the blueprint changed in between, it
says so and changes nothing; run it again.`,
		Example: `  gatewright rollout undo internet
  gatewright rollout undo internet --to-revision 3`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k8s, err := blueprintClient(opts)
			if err != nil {
				return err
			}
			return runRolloutUndo(cmd.Context(), cmd.OutOrStdout(), k8s, args[0], to)
		},
	}
	cmd.Flags().Int64Var(&to, "to-revision", 0, "the revision whose spec to go back to (default: see above)")
	return cmd
}

func runRolloutUndo(ctx context.Context, out io.Writer, k8s client.Client, name string, to int64) error {
	bp, err := getBlueprint(ctx, k8s, name)
	if err != nil {
		return err
	}
	history, err := revisionsOf(ctx, k8s, bp)
	if err != nil {
		return err
	}
	rev, err := undoTarget(bp, history, to)
	if err != nil {
		return err
	}
	live, err := revisions.SpecHash(&bp.Spec)
	if err != nil {
		return err
	}
	if rev.Hash == live {
		return refuse("the spec of GatewayClassBlueprint %s is revision %d's already", name, rev.Revision)
	}
	spec := rev.Spec.DeepCopy()
	spec.Rollout = bp.Spec.Rollout
	bp.Spec = *spec
	if err := k8s.Update(ctx, bp); apierrors.IsConflict(err) {
		return fmt.Errorf("GatewayClassBlueprint %s changed since undo read it; nothing was written: try again", name)
	} else if err != nil {
		return fmt.Errorf("updating GatewayClassBlueprint %s: %w", name, err)
	}
	newest := history[len(history)-1]
	if rev.Hash == newest.Hash {
		// The live spec was an edit that made no revision: undoing it makes none either.
		_, err = fmt.Fprintf(out, "GatewayClassBlueprint %s: spec set back to revision %d's, the newest revision (spec.rollout kept); no new revision\n", name, rev.Revision)
		return err
	}
	next := newest.Revision + 1
	_, err = fmt.Fprintf(out, `GatewayClassBlueprint %s: spec set to revision %d's (spec.rollout kept).
The controller makes it revision %d, which rolls out like any change: gatewright rollout status %s
To have it on every Gateway at once once its rollout has started: gatewright rollout promote %s --revision %d
`, name, rev.Revision, next, name, name, next)
	return err
}

// undoTarget is the revision undo goes back to: revision to, or by default the one the
// Gateways run while the newest has not reached them all, else the newest before it.
// Going back past the revision the Gateways run would undo a change that worked.
func undoTarget(bp *gatewrightv1alpha1.GatewayClassBlueprint, history []gatewrightv1alpha1.GatewayClassBlueprintRevision, to int64) (*gatewrightv1alpha1.GatewayClassBlueprintRevision, error) {
	if len(history) == 0 {
		return nil, refuse("GatewayClassBlueprint %s has no revisions yet", bp.Name)
	}
	find := func(n int64) *gatewrightv1alpha1.GatewayClassBlueprintRevision {
		for i := range history {
			if history[i].Revision == n {
				return &history[i]
			}
		}
		return nil
	}
	if st := bp.Status.Rollout; to != 0 && st != nil && st.Revision == to && st.Phase == gatewrightv1alpha1.RolloutRolledBack {
		return nil, refuse("the rollout of revision %d of GatewayClassBlueprint %s was rolled back (%s): undo goes back to a revision that worked; fix the spec instead", to, bp.Name, rolledBackWhy(st))
	}
	if to != 0 {
		if rev := find(to); rev != nil {
			return rev, nil
		}
		return nil, refuse("GatewayClassBlueprint %s has no revision %d; it has %s", bp.Name, to, revisionNumbers(history))
	}
	current, target := bp.Status.CurrentRevision, bp.Status.TargetRevision
	if current != target {
		if rev := find(current); rev != nil {
			return rev, nil
		}
	}
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Revision < current {
			return &history[i], nil
		}
	}
	return nil, refuse("GatewayClassBlueprint %s has no revision before its current revision %d; it has %s", bp.Name, current, revisionNumbers(history))
}

func revisionNumbers(history []gatewrightv1alpha1.GatewayClassBlueprintRevision) string {
	numbers := make([]string, len(history))
	for i, rev := range history {
		numbers[i] = strconv.FormatInt(rev.Revision, 10)
	}
	return strings.Join(numbers, ", ")
}
