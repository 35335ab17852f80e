package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/rollout"
)

func newRolloutStatusCommand(opts *clusterOptions) *cobra.Command {
	var output string
	var watch bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "status BLUEPRINT [-o json]",
		Short: "Show the rollout of a blueprint's newest revision, and its revisions",
		Long: `status shows the blueprint's current revision (what Gateways run unless a rollout
assigned them a newer one, new Gateways included) and target revision (the newest), how many Gateways run each,
the rollout settings, and the newest rollout: its phase, the wave ("k of N", with the
wave sizes for today's number of Gateways), how many Gateways have the revision, when the
wave started and how long its gate deadline has left, and why it was rolled back. (The
soak counts from what the wave's Gateways record: gatewright tree gateway shows them.) Then the history, from the revisions (kubectl get gcbr): REVISION, GATEWAYS, AGE,
and which is CURRENT and TARGET.

-o json prints the same; its rollout.wave and rollout.failure.wave are indexes in
spec.rollout.waves, as in the blueprint's status (the text's "wave k" is index k-1).

--watch follows the rollout of the newest revision instead, a line each time it moves,
until it ends, and exits for a script or a pipeline to gate on: 0 when the revision runs
on every Gateway, 1 when its rollout was rolled back, 2 on an error or when --timeout
passes first. A paused rollout is waited for.`,
		Example: `  gatewright rollout status internet
  gatewright rollout status internet -o json
  gatewright rollout status internet --watch --timeout 30m`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "" && output != "json" {
				return fmt.Errorf("--output must be json, not %q", output)
			}
			k8s, err := blueprintClient(opts)
			if err != nil {
				return err
			}
			if watch {
				return watchRollout(cmd.Context(), cmd.OutOrStdout(), k8s, args[0], timeout)
			}
			report, err := readRolloutReport(cmd.Context(), k8s, args[0], time.Now())
			if err != nil {
				return err
			}
			if output == "json" {
				return printObject(cmd.OutOrStdout(), report, "json")
			}
			return report.print(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "json (default: text)")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "follow the newest revision's rollout until it ends; exit 0 complete, 1 rolled back, 2 error or timeout")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "with --watch, give up after this long (exit 2); 0 waits as long as it takes")
	return cmd
}

// rolloutReport is what `rollout status` shows.
type rolloutReport struct {
	Blueprint       string `json:"blueprint"`
	CurrentRevision int64  `json:"currentRevision"`
	TargetRevision  int64  `json:"targetRevision"`
	// Gateways counts the Gateways of the blueprint's classes that run a revision.
	Gateways int             `json:"gateways"`
	Settings rolloutSettings `json:"settings"`
	// Rollout is the newest rollout; nil before the blueprint's second revision.
	Rollout *rolloutState    `json:"rollout,omitempty"`
	History []revisionReport `json:"history"`
	// now is when the report was read: the text's ages count from it.
	now time.Time
}

// rolloutSettings are spec.rollout with its defaults.
type rolloutSettings struct {
	Strategy            gatewrightv1alpha1.RolloutStrategy `json:"strategy"`
	Waves               []string                           `json:"waves"`
	SoakSeconds         int64                              `json:"soakSeconds"`
	GateDeadlineSeconds int64                              `json:"gateDeadlineSeconds"`
	OrderNamespaceLabel string                             `json:"orderNamespaceLabel,omitempty"`
	Paused              bool                               `json:"paused"`
	// Held says which promote or abort annotation is not a revision number: the
	// controller holds the rollout as if paused until it is fixed or removed.
	Held string `json:"held,omitempty"`
}

// rolloutState is status.rollout with what follows from it now.
type rolloutState struct {
	gatewrightv1alpha1.BlueprintRolloutStatus
	// Waves counts the waves; WaveSizes are their cumulative sizes for today's Gateways.
	Waves     int   `json:"waves"`
	WaveSizes []int `json:"waveSizes"`
	// DeadlineLeftSeconds is how long the wave has left to pass its gate; set while a
	// gate runs. (When its soak started is in its Gateways' status: gatewright tree.)
	DeadlineLeftSeconds *int64 `json:"deadlineLeftSeconds,omitempty"`
}

// revisionReport is one revision of the history.
type revisionReport struct {
	Revision int64       `json:"revision"`
	Gateways int32       `json:"gateways"`
	Created  metav1.Time `json:"created"`
	Current  bool        `json:"current,omitempty"`
	Target   bool        `json:"target,omitempty"`
}

func readRolloutReport(ctx context.Context, k8s client.Client, name string, now time.Time) (*rolloutReport, error) {
	bp, err := getBlueprint(ctx, k8s, name)
	if err != nil {
		return nil, err
	}
	history, err := revisionsOf(ctx, k8s, bp)
	if err != nil {
		return nil, err
	}
	return newRolloutReport(bp, history, now), nil
}

// revisionsOf lists bp's revisions, oldest first, as the controller reads them.
func revisionsOf(ctx context.Context, k8s client.Client, bp *gatewrightv1alpha1.GatewayClassBlueprint) ([]gatewrightv1alpha1.GatewayClassBlueprintRevision, error) {
	var list gatewrightv1alpha1.GatewayClassBlueprintRevisionList
	if err := k8s.List(ctx, &list, client.MatchingLabels{gatewrightv1alpha1.LabelBlueprint: revisions.LabelValue(bp.Name)}); err != nil {
		return nil, fmt.Errorf("listing the revisions of GatewayClassBlueprint %s: %w", bp.Name, err)
	}
	var out []gatewrightv1alpha1.GatewayClassBlueprintRevision
	for _, rev := range list.Items {
		// A cut label may be shared, and a blueprint made again under the same name
		// leaves the old one's revisions until they are collected.
		if rev.Blueprint == bp.Name && metav1.IsControlledBy(&rev, bp) {
			out = append(out, rev)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Revision < out[j].Revision })
	return out, nil
}

// newRolloutReport is what bp's status and history say at now.
func newRolloutReport(bp *gatewrightv1alpha1.GatewayClassBlueprint, history []gatewrightv1alpha1.GatewayClassBlueprintRevision, now time.Time) *rolloutReport {
	cfg := rollout.ConfigFrom(bp.Spec.Rollout)
	report := &rolloutReport{
		Blueprint:       bp.Name,
		CurrentRevision: bp.Status.CurrentRevision,
		TargetRevision:  bp.Status.TargetRevision,
		Settings: rolloutSettings{
			Strategy: gatewrightv1alpha1.RolloutWaves, Waves: cfg.Waves,
			SoakSeconds: int64(cfg.Soak / time.Second), GateDeadlineSeconds: int64(cfg.GateDeadline / time.Second),
			OrderNamespaceLabel: cfg.OrderLabel, Paused: cfg.Paused, Held: rollout.ConfigOf(bp).Unreadable,
		},
		History: []revisionReport{},
		now:     now,
	}
	if bp.Spec.Rollout != nil && bp.Spec.Rollout.Strategy != "" {
		report.Settings.Strategy = bp.Spec.Rollout.Strategy
	}
	running := map[int64]int32{}
	for _, r := range bp.Status.Revisions {
		running[r.Revision] = r.Gateways
		report.Gateways += int(r.Gateways)
	}
	for _, rev := range history {
		report.History = append(report.History, revisionReport{
			Revision: rev.Revision, Gateways: running[rev.Revision], Created: rev.CreationTimestamp,
			Current: rev.Revision == bp.Status.CurrentRevision, Target: rev.Revision == bp.Status.TargetRevision,
		})
	}
	if st := bp.Status.Rollout; st != nil {
		report.Rollout = newRolloutState(st, cfg, report.Gateways, now)
	}
	return report
}

func newRolloutState(st *gatewrightv1alpha1.BlueprintRolloutStatus, cfg rollout.Config, gateways int, now time.Time) *rolloutState {
	state := &rolloutState{
		BlueprintRolloutStatus: *st.DeepCopy(),
		Waves:                  len(cfg.Waves),
		WaveSizes:              rollout.WaveSizes(gateways, cfg.Waves),
	}
	if state.WaveSizes == nil {
		state.WaveSizes = []int{}
	}
	if st.Phase == gatewrightv1alpha1.RolloutProgressing && st.WaveStarted != nil {
		state.DeadlineLeftSeconds = secondsLeft(st.WaveStarted.Add(cfg.GateDeadline), now)
	}
	return state
}

// secondsLeft is the whole seconds from now to until, 0 once it has passed: the
// controller acts on it at its next step.
func secondsLeft(until, now time.Time) *int64 {
	left := max(int64(until.Sub(now)/time.Second), 0)
	return &left
}
