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
	var force bool
	cmd := &cobra.Command{
		Use:   "undo BLUEPRINT [--to-revision N] [--force]",
		Short: "Set the blueprint's spec back to an older revision's",
		Long: `undo sets the blueprint's spec to that of revision N, keeping its spec.rollout. By default N
is the revision the Gateways run when the newest one has not reached them all
(status.currentRevision, while a rollout is under way or after it was rolled back), else the
newest revision before it that still exists.

The spec then differs from the newest revision's, so the controller makes it a new revision,
which rolls out like any change, in waves. To have it on every Gateway at once, promote it
once its rollout has started: gatewright rollout promote BLUEPRINT. undo sets the spec only:
the class-wide GatewayClassConfigs that ride the blueprint's rollout stay as they are, and
the new revision holds them as they are now.

undo refuses to go back to the revision whose rollout was rolled back: undo goes back to what
worked. --force sets the spec to it all the same. It is the newest revision, so the spec is
that revision's again and the controller makes no new revision: its rollout stays rolled
back and the Gateways keep the revision they run (promote --force gives it to them).

undo writes with the resourceVersion it read: when the blueprint changed in between, it
says so and changes nothing; run it again. Under GitOps, revert the spec in Git instead
(docs/rollout.md): the tool would put back what Git says.`,
		Example: `  gatewright rollout undo internet
  gatewright rollout undo internet --to-revision 3`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k8s, err := blueprintClient(opts)
			if err != nil {
				return err
			}
			return runRolloutUndo(cmd.Context(), cmd.OutOrStdout(), k8s, args[0], to, force)
		},
	}
	cmd.Flags().Int64Var(&to, "to-revision", 0, "the revision whose spec to go back to (default: see above)")
	cmd.Flags().BoolVar(&force, "force", false, "go back to the revision whose rollout was rolled back")
	return cmd
}

func runRolloutUndo(ctx context.Context, out io.Writer, k8s client.Client, name string, to int64, force bool) error {
	bp, err := getBlueprint(ctx, k8s, name)
	if err != nil {
		return err
	}
	history, err := revisionsOf(ctx, k8s, bp)
	if err != nil {
		return err
	}
	rev, rolledBack, err := undoTarget(bp, history, to, force)
	if err != nil {
		return err
	}
	// Specs are compared without the riding configs a revision's hash also covers: undo
	// sets the spec only.
	live, err := revisions.SpecHash(&bp.Spec)
	if err != nil {
		return err
	}
	wanted, err := revisions.SpecHash(&rev.Spec)
	if err != nil {
		return err
	}
	newest := history[len(history)-1]
	if wanted == live {
		if rolledBack && rev.Revision == newest.Revision {
			return refuse("the spec of GatewayClassBlueprint %s is revision %d's already; its rollout was rolled back and stays so: to give it to every Gateway at once, gatewright rollout promote %s --revision %d --force", name, rev.Revision, name, rev.Revision)
		}
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
	newestSpec, err := revisions.SpecHash(&newest.Spec)
	if err != nil {
		return err
	}
	switch {
	case wanted == newestSpec && rolledBack:
		_, err = fmt.Fprintf(out, `GatewayClassBlueprint %s: spec set back to revision %d's, which was rolled back, with --force (spec.rollout kept).
It is the newest revision: no new revision, its rollout stays rolled back and the Gateways keep revision %d.
To give it to every Gateway at once: gatewright rollout promote %s --revision %d --force
`, name, rev.Revision, bp.Status.CurrentRevision, name, rev.Revision)
		return err
	case wanted == newestSpec:
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
// Going back past the revision the Gateways run would undo a change that worked; going
// to the revision whose rollout was rolled back takes force, and says so (rolledBack).
func undoTarget(bp *gatewrightv1alpha1.GatewayClassBlueprint, history []gatewrightv1alpha1.GatewayClassBlueprintRevision, to int64, force bool) (rev *gatewrightv1alpha1.GatewayClassBlueprintRevision, rolledBack bool, err error) {
	if len(history) == 0 {
		return nil, false, refuse("GatewayClassBlueprint %s has no revisions yet", bp.Name)
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
		if !force {
			return nil, false, refuse("the rollout of revision %d of GatewayClassBlueprint %s was rolled back (%s): undo goes back to a revision that worked; fix the spec instead, or, to set the spec to it anyway, --force",
				to, bp.Name, rolledBackWhy(st))
		}
		rolledBack = true
	}
	if to != 0 {
		if rev := find(to); rev != nil {
			return rev, rolledBack, nil
		}
		return nil, false, refuse("GatewayClassBlueprint %s has no revision %d; it has %s", bp.Name, to, revisionNumbers(history))
	}
	current, target := bp.Status.CurrentRevision, bp.Status.TargetRevision
	if current != target {
		if rev := find(current); rev != nil {
			return rev, false, nil
		}
	}
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Revision < current {
			return &history[i], false, nil
		}
	}
	return nil, false, refuse("GatewayClassBlueprint %s has no revision before its current revision %d; it has %s", bp.Name, current, revisionNumbers(history))
}

func revisionNumbers(history []gatewrightv1alpha1.GatewayClassBlueprintRevision) string {
	numbers := make([]string, len(history))
	for i, rev := range history {
		numbers[i] = strconv.FormatInt(rev.Revision, 10)
	}
	return strings.Join(numbers, ", ")
}
