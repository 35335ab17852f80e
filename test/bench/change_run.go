package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// changeResult is what a change cost, from the edit until every changed object had its
// new content, the blueprint's rollout was complete and the controller was quiet for the
// settle time.
type changeResult struct {
	Change  change  `json:"change"`
	Rollout rollout `json:"rollout"`
	// ChangedGateways counts the Gateways the change reaches.
	ChangedGateways int `json:"changedGateways"`
	// AppliedSeconds is when the last changed object was seen with its new content.
	AppliedSeconds float64 `json:"appliedSeconds"`
	// RolloutDoneSeconds is when the blueprint's current revision was seen to be its
	// target again (at once for the floor, whose blueprint nobody reconciles).
	RolloutDoneSeconds float64 `json:"rolloutDoneSeconds"`
	// BusyUntilSeconds is when the controller's last request other than a watch was
	// received, or RolloutDoneSeconds if that came later.
	BusyUntilSeconds float64 `json:"busyUntilSeconds"`
	// Settled is false when the controller was still busy after settle-max.
	Settled bool  `json:"settled"`
	Window  tally `json:"window"`
	// UnchangedWrites counts the writes of objects in the tenant namespaces the change
	// does not reach: the writes for Gateways whose objects do not change.
	UnchangedWrites int `json:"unchangedWrites"`
	// GatewayReconciles counts the controller's reconciles of Gateways in the window.
	GatewayReconciles    int     `json:"gatewayReconciles"`
	ControllerCPUSeconds float64 `json:"controllerCPUSeconds"`
	APIServerCPUSeconds  float64 `json:"apiServerCPUSeconds"`
}

// measureChange makes the run's change on the settled fleet and waits until every
// changed object has its new content, the rollout is complete and the controller is
// quiet. It returns when the window ended.
func (r *run) measureChange(ctx context.Context, cpu *cpuMeter) (*changeResult, time.Time, error) {
	res := &changeResult{Change: r.change, Rollout: r.rollout, ChangedGateways: r.change.changedGateways(r.settings)}
	watch, err := watchBootstrap(ctx, r.cluster.adminCfg, r.cluster.env.Scheme, r.change.floorChange(), res.ChangedGateways)
	if err != nil {
		return nil, time.Time{}, err
	}
	if _, _, err := cpu.sample(); err != nil {
		return nil, time.Time{}, err
	}
	reconcilesBefore, err := r.gatewayReconciles(ctx)
	if err != nil {
		return nil, time.Time{}, err
	}
	progress(r.name, "making the %s change (rollout %s), reaching %d Gateways", r.change, r.rollout, res.ChangedGateways)
	var profiler *apiServerProfiler
	if r.profileDir != "" {
		profiler = startAPIServerProfile(r.cluster.debugSocket, filepath.Join(r.profileDir, fmt.Sprintf("round%d-%s-change-apiserver", r.round, r.name)), profilePiece)
		defer func() { _, _ = profiler.Stop() }()
	}
	start := time.Now()
	if err := r.makeChange(ctx, r.cluster.admin, r.settings); err != nil {
		return nil, time.Time{}, fmt.Errorf("making the %s change: %w", r.change, err)
	}
	applied, err := r.awaitChanged(ctx, watch, start)
	if err != nil {
		return nil, time.Time{}, err
	}
	if profiler != nil {
		pieces, err := profiler.Stop()
		if err != nil {
			return nil, time.Time{}, err
		}
		progress(r.name, "%d CPU profiles of the API server, %s each, until every changed object was applied, in %s", pieces, profilePiece, r.profileDir)
	}
	done, err := r.awaitRolloutDone(ctx)
	if err != nil {
		return nil, time.Time{}, err
	}
	busyUntil, settled, err := r.awaitSettled(ctx, done)
	if err != nil {
		return nil, time.Time{}, err
	}
	end := time.Now()
	reconcilesAfter, err := r.gatewayReconciles(ctx)
	if err != nil {
		return nil, time.Time{}, err
	}
	res.GatewayReconciles = reconcilesAfter - reconcilesBefore
	res.AppliedSeconds = applied.Sub(start).Seconds()
	res.RolloutDoneSeconds = done.Sub(start).Seconds()
	res.BusyUntilSeconds, res.Settled = busyUntil.Sub(start).Seconds(), settled
	if res.ControllerCPUSeconds, res.APIServerCPUSeconds, err = cpu.sample(); err != nil {
		return nil, time.Time{}, err
	}
	if err := r.audit.read(); err != nil {
		return nil, time.Time{}, err
	}
	res.Window = r.audit.tally(start, end)
	res.UnchangedWrites = unchangedWrites(res.Window, r.change.floorChange(), r.namespaces)
	return res, end, nil
}

// awaitChanged waits until every ConfigMap the change reaches has its new content.
func (r *run) awaitChanged(ctx context.Context, watch *bootstrapWatch, start time.Time) (time.Time, error) {
	report := time.NewTicker(10 * time.Second)
	defer report.Stop()
	for {
		select {
		case <-watch.all:
			return watch.lastChanged(), nil
		case <-report.C:
			progress(r.name, "%s: %d of %d ConfigMaps changed", time.Since(start).Round(time.Second), watch.count(), watch.want)
		case <-r.proc.exited:
			return time.Time{}, r.proc.exitError(r.logPath)
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%d of %d ConfigMaps changed: %w", watch.count(), watch.want, ctx.Err())
		}
	}
}

// awaitRolloutDone waits until the bench blueprint's current revision is its target: a
// rollout in waves is over only after its last wave's soak, with the status write that
// ends it.
func (r *run) awaitRolloutDone(ctx context.Context) (time.Time, error) {
	bp := &unstructured.Unstructured{}
	bp.SetGroupVersionKind(schema.GroupVersionKind{Group: "gatewright.dev", Version: "v1alpha1", Kind: "GatewayClassBlueprint"})
	for {
		if err := r.cluster.admin.Get(ctx, client.ObjectKey{Name: benchClass}, bp); err != nil {
			return time.Time{}, err
		}
		current, _, _ := unstructured.NestedInt64(bp.Object, "status", "currentRevision")
		target, _, _ := unstructured.NestedInt64(bp.Object, "status", "targetRevision")
		if current == target {
			return time.Now(), nil
		}
		if err := r.sleep(ctx, 200*time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
}

// unchangedWrites counts the writes in the tenant namespaces that change does not reach.
func unchangedWrites(t tally, change floorChange, namespaces int) int {
	n := 0
	for i := range namespaces {
		if ns := namespaceName(i); !change.reaches(ns) {
			n += t.WritesByNamespace[ns]
		}
	}
	return n
}
