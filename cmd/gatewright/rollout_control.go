package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

func newRolloutPauseCommand(opts *clusterOptions, pause bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pause BLUEPRINT",
		Short: "Hold the blueprint's rollout: no wave starts and none is rolled back",
		Long: `pause sets spec.rollout.paused to true (a merge patch, which makes no revision): no wave
starts and no wave is rolled back until resume. A revision made while paused waits before
its first wave.`,
		Args: cobra.ExactArgs(1),
	}
	if !pause {
		cmd.Use = "resume BLUEPRINT"
		cmd.Short = "Let the blueprint's rollout go on, restarting the current wave's gate"
		cmd.Long = `resume sets spec.rollout.paused to false (a merge patch, which makes no revision): the
current wave's gate starts again, its soak and deadline counted from now.`
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		k8s, err := blueprintClient(opts)
		if err != nil {
			return err
		}
		return runRolloutPause(cmd.Context(), cmd.OutOrStdout(), k8s, args[0], pause)
	}
	return cmd
}

func runRolloutPause(ctx context.Context, out io.Writer, k8s client.Client, name string, pause bool) error {
	bp, err := getBlueprint(ctx, k8s, name)
	if err != nil {
		return err
	}
	paused := bp.Spec.Rollout != nil && bp.Spec.Rollout.Paused
	if paused == pause {
		_, err := fmt.Fprintf(out, "GatewayClassBlueprint %s: spec.rollout.paused is %t already; nothing changed\n", name, pause)
		return err
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"rollout": map[string]any{"paused": pause}}})
	if err != nil {
		return err
	}
	if err := k8s.Patch(ctx, bp, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("patching spec.rollout.paused of GatewayClassBlueprint %s: %w", name, err)
	}
	what := "paused: no wave starts and none is rolled back until `gatewright rollout resume " + name + "`"
	if !pause {
		what = "resumed: the current wave's gate starts again"
	}
	_, err = fmt.Fprintf(out, "GatewayClassBlueprint %s: spec.rollout.paused set to %t; the rollout is %s\n", name, pause, what)
	return err
}

func newRolloutPromoteCommand(opts *clusterOptions) *cobra.Command {
	var revision int64
	var force bool
	cmd := &cobra.Command{
		Use:   "promote BLUEPRINT [--revision N] [--force]",
		Short: "Give the rolling-out revision to every remaining Gateway at once",
		Long: `promote sets the blueprint's annotation gatewright.dev/rollout-promote to the revision (by
default the one rolling out, status.rollout.revision): the controller assigns it to every
Gateway that does not have it yet, at once and without a gate, and the rollout is Complete.
It refuses when there is no rollout of that revision and when it is complete already.

It refuses too when the rollout was rolled back (a failed gate or an abort): the revision
broke Gateways, and promoting it would give it to every one. The controller does not
honour such a promote either. To try it again in waves, make it a new revision (fix the
spec, or edit it back). --force promotes it all the same: it also sets the annotation
gatewright.dev/rollout-force-promote to the revision, and the controller then gives the
revision that failed its gate to every Gateway of the blueprint's classes at once, with no
gate and nothing to roll it back.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k8s, err := blueprintClient(opts)
			if err != nil {
				return err
			}
			return runRolloutPromote(cmd.Context(), cmd.OutOrStdout(), k8s, args[0], revision, force)
		},
	}
	cmd.Flags().Int64Var(&revision, "revision", 0, "the revision to promote (default: the one rolling out)")
	cmd.Flags().BoolVar(&force, "force", false, "promote a revision whose rollout was rolled back: every Gateway gets it at once")
	return cmd
}

func runRolloutPromote(ctx context.Context, out io.Writer, k8s client.Client, name string, revision int64, force bool) error {
	bp, err := getBlueprint(ctx, k8s, name)
	if err != nil {
		return err
	}
	st := bp.Status.Rollout
	if revision == 0 && st != nil {
		revision = st.Revision
	}
	switch {
	case st == nil:
		return refuse("GatewayClassBlueprint %s has no rollout to promote", name)
	case st.Revision != revision:
		return refuse("GatewayClassBlueprint %s has no rollout of revision %d: the newest rollout is of revision %d (%s)", name, revision, st.Revision, st.Phase)
	case st.Phase == gatewrightv1alpha1.RolloutComplete:
		return refuse("the rollout of revision %d of GatewayClassBlueprint %s is complete already", revision, name)
	case st.Phase == gatewrightv1alpha1.RolloutRolledBack && !force:
		return refuse("the rollout of revision %d of GatewayClassBlueprint %s was rolled back (%s); a revision that failed its gate is not promoted: fix the spec, which makes a new revision, or, to give it to every Gateway at once anyway, gatewright rollout promote %s --revision %d --force",
			revision, name, rolledBackWhy(st), name, revision)
	case st.Phase == gatewrightv1alpha1.RolloutRolledBack:
		annotations := map[string]string{
			gatewrightv1alpha1.AnnotationRolloutPromote:      strconv.FormatInt(revision, 10),
			gatewrightv1alpha1.AnnotationRolloutForcePromote: strconv.FormatInt(revision, 10),
		}
		if err := annotateAll(ctx, k8s, bp, annotations); err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "GatewayClassBlueprint %s: promoting revision %d, which was rolled back (%s), with --force (%s=%d, %s=%d): every Gateway of the blueprint's classes gets it at once, from revision %d, with no gate and nothing to roll it back; the rollout completes\n",
			name, revision, rolledBackAt(st), gatewrightv1alpha1.AnnotationRolloutPromote, revision, gatewrightv1alpha1.AnnotationRolloutForcePromote, revision, st.From)
		return err
	}
	if err := annotate(ctx, k8s, bp, gatewrightv1alpha1.AnnotationRolloutPromote, revision); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "GatewayClassBlueprint %s: promoting revision %d (%s=%d): every Gateway that does not run it gets it at once, and the rollout completes\n",
		name, revision, gatewrightv1alpha1.AnnotationRolloutPromote, revision)
	return err
}

func newRolloutAbortCommand(opts *clusterOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "abort BLUEPRINT",
		Short: "Send the Gateways that got the rolling-out revision back, and stop the rollout",
		Long: `abort sets the blueprint's annotation gatewright.dev/rollout-abort to the revision rolling
out (status.rollout.revision): the controller sends every Gateway that has it back to the
revision the rollout started from, as a failed gate does, and the rollout is RolledBack
with the failure "aborted by the provider" until the next change of the spec. It refuses
when there is no rollout, or it is complete or rolled back already.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k8s, err := blueprintClient(opts)
			if err != nil {
				return err
			}
			return runRolloutAbort(cmd.Context(), cmd.OutOrStdout(), k8s, args[0])
		},
	}
}

func runRolloutAbort(ctx context.Context, out io.Writer, k8s client.Client, name string) error {
	bp, err := getBlueprint(ctx, k8s, name)
	if err != nil {
		return err
	}
	st := bp.Status.Rollout
	switch {
	case st == nil:
		return refuse("GatewayClassBlueprint %s has no rollout to abort", name)
	case st.Phase == gatewrightv1alpha1.RolloutComplete:
		return refuse("the rollout of revision %d of GatewayClassBlueprint %s is complete already: to go back, `gatewright rollout undo %s`", st.Revision, name, name)
	case st.Phase == gatewrightv1alpha1.RolloutRolledBack:
		return refuse("the rollout of revision %d of GatewayClassBlueprint %s was rolled back already", st.Revision, name)
	}
	if err := annotate(ctx, k8s, bp, gatewrightv1alpha1.AnnotationRolloutAbort, st.Revision); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "GatewayClassBlueprint %s: aborting the rollout of revision %d (%s=%d): the Gateways that have it go back to revision %d, and the rollout stops until the next change of the spec\n",
		name, st.Revision, gatewrightv1alpha1.AnnotationRolloutAbort, st.Revision, st.From)
	return err
}

// annotate sets bp's annotation key to revision with a merge patch.
func annotate(ctx context.Context, k8s client.Client, bp *gatewrightv1alpha1.GatewayClassBlueprint, key string, revision int64) error {
	return annotateAll(ctx, k8s, bp, map[string]string{key: strconv.FormatInt(revision, 10)})
}

// annotateAll sets bp's annotations with one merge patch, so that the controller sees
// them together.
func annotateAll(ctx context.Context, k8s client.Client, bp *gatewrightv1alpha1.GatewayClassBlueprint, annotations map[string]string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return err
	}
	if err := k8s.Patch(ctx, bp, client.RawPatch(types.MergePatchType, patch)); err != nil {
		keys := slices.Sorted(maps.Keys(annotations))
		return fmt.Errorf("annotating GatewayClassBlueprint %s with %s: %w", bp.Name, strings.Join(keys, ", "), err)
	}
	return nil
}

// rolledBackAt says which wave of a rolled-back rollout failed, when it had started, and why.
func rolledBackAt(st *gatewrightv1alpha1.BlueprintRolloutStatus) string {
	at := ""
	if st.Failure != nil {
		at = fmt.Sprintf("wave %d", st.Failure.Wave+1)
		if st.WaveStarted != nil {
			at += ", started " + st.WaveStarted.UTC().Format(time.RFC3339)
		}
		at += ": "
	}
	return at + rolledBackWhy(st)
}

// rolledBackWhy says why a rollout was rolled back, as its failure says.
func rolledBackWhy(st *gatewrightv1alpha1.BlueprintRolloutStatus) string {
	if st.Failure == nil || st.Failure.Message == "" {
		return "its gate failed"
	}
	return st.Failure.Message
}
