package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// routesResult is what the routes shape cost: the routes' creation, from the first
// created until every one was Accepted and held by the routes ConfigMap and the
// controller quiet for the settle time; then one route's edit, until it was Accepted
// at its new generation and the ConfigMap held its new path, and the controller quiet.
type routesResult struct {
	Routes int `json:"routes"`
	// CreatedSeconds is when the harness had created the last route.
	CreatedSeconds float64 `json:"createdSeconds"`
	// AcceptedSeconds, HeldSeconds and DoneSeconds are when every route was first seen
	// Accepted, held by the routes ConfigMap, and both.
	AcceptedSeconds float64 `json:"acceptedSeconds"`
	HeldSeconds     float64 `json:"heldSeconds"`
	DoneSeconds     float64 `json:"doneSeconds"`
	// BusyUntilSeconds is when the controller's last request other than a watch was
	// received, or DoneSeconds if that came later.
	BusyUntilSeconds     float64         `json:"busyUntilSeconds"`
	Settled              bool            `json:"settled"`
	Window               tally           `json:"window"`
	GatewayReconciles    int             `json:"gatewayReconciles"`
	ControllerCPUSeconds float64         `json:"controllerCPUSeconds"`
	APIServerCPUSeconds  float64         `json:"apiServerCPUSeconds"`
	Edit                 routeEditResult `json:"edit"`
}

// routeEditResult is what editing one route's path cost, over settings.routeEdits
// edits one after another, each measured once the controller was quiet after the last.
type routeEditResult struct {
	// AppliedSeconds is the median of AppliedEachSeconds: one edit is one sample of a
	// time of a tenth of a second, which the machine moves by more than that.
	AppliedSeconds     float64   `json:"appliedSeconds"`
	AppliedEachSeconds []float64 `json:"appliedEachSeconds"`
	// BusyUntilSeconds is the last edit's, from its start.
	BusyUntilSeconds float64 `json:"busyUntilSeconds"`
	Settled          bool    `json:"settled"`
	// Window, GatewayReconciles and the CPU are every edit's together.
	Window               tally   `json:"window"`
	GatewayReconciles    int     `json:"gatewayReconciles"`
	ControllerCPUSeconds float64 `json:"controllerCPUSeconds"`
	APIServerCPUSeconds  float64 `json:"apiServerCPUSeconds"`
}

// measureRoutes creates the routes on the settled Gateway, then edits one, and waits
// for each as routesResult says. It returns when the edit's window ended.
func (r *run) measureRoutes(ctx context.Context, cpu *cpuMeter) (*routesResult, time.Time, error) {
	gw := gateway(routesGatewayIndex, r.namespaces)
	watch, err := watchRoutes(ctx, r.cluster.adminCfg, r.cluster.env.Scheme, client.ObjectKeyFromObject(gw), r.routes)
	if err != nil {
		return nil, time.Time{}, err
	}
	res := &routesResult{Routes: r.routes}
	reconciles, err := r.gatewayReconciles(ctx)
	if err != nil {
		return nil, time.Time{}, err
	}
	if _, _, err := cpu.sample(); err != nil {
		return nil, time.Time{}, err
	}
	progress(r.name, "creating %d routes on %s/%s, %d at a time", r.routes, gw.Namespace, gw.Name, r.parallel)
	stopProfile := r.profile("routes")
	start := time.Now()
	if err := createRoutes(ctx, r.cluster.admin, r.settings); err != nil {
		return nil, time.Time{}, err
	}
	res.CreatedSeconds = time.Since(start).Seconds()
	if err := r.awaitRoutes(ctx, start, watch); err != nil {
		return nil, time.Time{}, err
	}
	if err := stopProfile(); err != nil {
		return nil, time.Time{}, err
	}
	acceptedAt, heldAt, done := watch.times()
	busyUntil, settled, err := r.awaitSettled(ctx, done)
	if err != nil {
		return nil, time.Time{}, err
	}
	end := time.Now()
	res.AcceptedSeconds, res.HeldSeconds, res.DoneSeconds = acceptedAt.Sub(start).Seconds(), heldAt.Sub(start).Seconds(), done.Sub(start).Seconds()
	res.BusyUntilSeconds, res.Settled = busyUntil.Sub(start).Seconds(), settled
	if res.GatewayReconciles, res.ControllerCPUSeconds, res.APIServerCPUSeconds, err = r.windowFigures(ctx, cpu, &reconciles); err != nil {
		return nil, time.Time{}, err
	}
	res.Window = r.audit.tally(start, end)
	edit, end, err := r.measureRouteEdit(ctx, cpu, watch, &reconciles)
	if err != nil {
		return nil, time.Time{}, err
	}
	res.Edit = *edit
	return res, end, nil
}

// measureRouteEdit changes the path of one route among the settled ones
// settings.routeEdits times, each time waiting until the route is Accepted at its new
// generation, the routes ConfigMap holds its new path, and the controller is quiet.
func (r *run) measureRouteEdit(ctx context.Context, cpu *cpuMeter, watch *routeWatch, reconciles *int) (*routeEditResult, time.Time, error) {
	key := routeName(editedRoute, r.namespaces)
	res := &routeEditResult{Settled: true}
	stopProfile := r.profile("route-edit")
	first := time.Now()
	for edit := 1; edit <= r.routeEdits; edit++ {
		path := routePath(editedRoute, r.namespaces, edit)
		progress(r.name, "changing the path of %s to %s (edit %d of %d)", key, path, edit, r.routeEdits)
		route := &gatewayv1.HTTPRoute{}
		if err := r.cluster.admin.Get(ctx, key, route); err != nil {
			return nil, time.Time{}, err
		}
		route.Spec.Rules[0].Matches[0].Path.Value = ptr.To(path)
		start := time.Now()
		if err := r.cluster.admin.Update(ctx, route); err != nil {
			return nil, time.Time{}, fmt.Errorf("editing route %s: %w", key, err)
		}
		edited := watch.expect(key.String(), route.Generation, path)
		select {
		case <-edited:
		case <-r.proc.exited:
			return nil, time.Time{}, r.proc.exitError(r.logPath)
		case <-ctx.Done():
			return nil, time.Time{}, fmt.Errorf("waiting for the edit of route %s: %w", key, ctx.Err())
		}
		applied := watch.editedAt()
		busyUntil, settled, err := r.awaitSettled(ctx, applied)
		if err != nil {
			return nil, time.Time{}, err
		}
		res.AppliedEachSeconds = append(res.AppliedEachSeconds, applied.Sub(start).Seconds())
		res.BusyUntilSeconds, res.Settled = busyUntil.Sub(start).Seconds(), res.Settled && settled
	}
	if err := stopProfile(); err != nil {
		return nil, time.Time{}, err
	}
	end := time.Now()
	res.AppliedSeconds = median(slices.Clone(res.AppliedEachSeconds))
	var err error
	if res.GatewayReconciles, res.ControllerCPUSeconds, res.APIServerCPUSeconds, err = r.windowFigures(ctx, cpu, reconciles); err != nil {
		return nil, time.Time{}, err
	}
	res.Window = r.audit.tally(first, end)
	return res, end, nil
}

// awaitRoutes waits until every route is Accepted and held.
func (r *run) awaitRoutes(ctx context.Context, start time.Time, watch *routeWatch) error {
	report := time.NewTicker(10 * time.Second)
	defer report.Stop()
	for {
		select {
		case <-watch.all:
			return nil
		case <-report.C:
			accepted, held := watch.counts()
			progress(r.name, "%s: %d of %d routes Accepted, %d held", time.Since(start).Round(time.Second), accepted, r.routes, held)
		case <-r.proc.exited:
			return r.proc.exitError(r.logPath)
		case <-ctx.Done():
			accepted, held := watch.counts()
			return fmt.Errorf("%d of %d routes Accepted, %d held: %w", accepted, r.routes, held, ctx.Err())
		}
	}
}

// windowFigures are the Gateway reconciles since *reconciles (which it moves on) and
// the CPU time since the last sample, read after the audit log.
func (r *run) windowFigures(ctx context.Context, cpu *cpuMeter, reconciles *int) (gatewayReconciles int, controller, apiServer float64, err error) {
	if controller, apiServer, err = cpu.sample(); err != nil {
		return 0, 0, 0, err
	}
	now, err := r.gatewayReconciles(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	gatewayReconciles, *reconciles = now-*reconciles, now
	return gatewayReconciles, controller, apiServer, r.audit.read()
}

// gatewayReconciles is how many reconciles of Gateways the controller ran so far.
func (r *run) gatewayReconciles(ctx context.Context) (int, error) {
	return gatewayReconciles(ctx, r.proc.cmd.Args, r.gatewayController)
}

// profile profiles the API server as what, if asked to, until the function it returns
// is called.
func (r *run) profile(what string) func() error {
	if r.profileDir == "" {
		return func() error { return nil }
	}
	profiler := startAPIServerProfile(r.cluster.debugSocket, filepath.Join(r.profileDir, fmt.Sprintf("round%d-%s-%s-apiserver", r.round, r.name, what)), profilePiece)
	return func() error {
		pieces, err := profiler.Stop()
		if err == nil {
			progress(r.name, "%d CPU profiles of the API server, %s each, of the %s, in %s", pieces, profilePiece, what, r.profileDir)
		}
		return err
	}
}
