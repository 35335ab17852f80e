package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// The exit codes of `rollout status --watch`, for a script or a pipeline to gate on.
const (
	watchComplete   = 0
	watchRolledBack = 1
	watchError      = 2
)

// rolloutWatchInterval is how often `rollout status --watch` reads the blueprint.
var rolloutWatchInterval = 2 * time.Second

// watchRollout reads the blueprint's rollout until the newest revision has reached
// every Gateway (nil: exit 0) or was rolled back (exit 1), printing a line each time what
// it shows changes. An error reading it, or timeout passing first (0 waits as long as
// ctx), is exit 2.
func watchRollout(ctx context.Context, out io.Writer, k8s client.Client, name string, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	last := ""
	for {
		report, err := readRolloutReport(ctx, k8s, name, time.Now())
		if err != nil {
			return &exitError{code: watchError, err: err}
		}
		if line := report.watchLine(); line != last {
			if _, err := fmt.Fprintln(out, line); err != nil {
				return err
			}
			last = line
		}
		switch report.outcome() {
		case gatewrightv1alpha1.RolloutComplete:
			return nil
		case gatewrightv1alpha1.RolloutRolledBack:
			return &exitError{code: watchRolledBack, err: fmt.Errorf("the rollout of GatewayClassBlueprint %s was rolled back", name)}
		}
		select {
		case <-ctx.Done():
			return &exitError{code: watchError, err: fmt.Errorf("GatewayClassBlueprint %s: %s before its rollout ended: %w", name, last, ctx.Err())}
		case <-time.After(rolloutWatchInterval):
		}
	}
}

// outcome is Complete once the newest revision runs on every Gateway, RolledBack when
// its rollout was rolled back, else "" (under way, paused, or not started yet: a
// rollout of an older revision says nothing of the newest).
func (r *rolloutReport) outcome() gatewrightv1alpha1.RolloutPhase {
	st := r.Rollout
	switch {
	case st == nil || st.Revision != r.TargetRevision:
		if r.CurrentRevision == r.TargetRevision {
			return gatewrightv1alpha1.RolloutComplete
		}
	case st.Phase == gatewrightv1alpha1.RolloutRolledBack:
		return gatewrightv1alpha1.RolloutRolledBack
	case st.Phase == gatewrightv1alpha1.RolloutComplete && r.CurrentRevision == r.TargetRevision:
		return gatewrightv1alpha1.RolloutComplete
	}
	return ""
}

// watchLine is one line of what the rollout of the newest revision shows now.
func (r *rolloutReport) watchLine() string {
	st := r.Rollout
	if st == nil || st.Revision != r.TargetRevision {
		return fmt.Sprintf("revision %d: current revision %d, its rollout not started", r.TargetRevision, r.CurrentRevision)
	}
	switch st.Phase {
	case gatewrightv1alpha1.RolloutComplete:
		return fmt.Sprintf("revision %d: Complete on %d Gateways", st.Revision, r.Gateways)
	case gatewrightv1alpha1.RolloutRolledBack:
		why := "its gate failed"
		if f := st.Failure; f != nil && f.Message != "" {
			why = f.Message
		}
		return fmt.Sprintf("revision %d: RolledBack to revision %d: %s", st.Revision, st.From, why)
	}
	return fmt.Sprintf("revision %d: %s, wave %d of %d, %d of %d Gateways updated", st.Revision, st.Phase, st.Wave+1, st.Waves, st.Updated, r.Gateways)
}
