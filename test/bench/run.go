package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// settings are the parameters every run of one invocation shares.
type settings struct {
	gateways   int
	namespaces int
	parallel   int           // Gateways created at once
	settle     time.Duration // quiet time that ends the creation window
	settleMax  time.Duration // the longest the harness waits for that quiet
	steady     time.Duration // the steady-state window after it
	binDir     string        // etcd and kube-apiserver
	keep       bool          // keep each run's folder: audit log, controller log, kubeconfig
	profileDir string        // where to write CPU profiles of the API server; none if empty
	change     change        // made once the fleet has settled, before the steady window
	rollout    rollout       // the blueprint's strategy in a run with a change
	restart    bool          // restart the controller once the fleet has settled, after the change
	routes     int           // the routes shape (routes.go): routes created on one Gateway once it is Programmed
	routeEdits int           // then how many times one route's path is changed
	// floorCachesChildren makes the floor cache the children it applies.
	floorCachesChildren bool
	// valuesBytes, when not 0, is the large-values shape (values.go): each Gateway's
	// values carry this many bytes, rendered into a ConfigMap.
	valuesBytes int
}

// contender is a controller the harness measures.
type contender struct {
	name   string
	user   string
	groups []string
	// install grants the user its rights, as the harness's admin.
	install func(ctx context.Context, admin client.Client) error
	// command is the controller's command line; it serves metrics (metricsFlag).
	command func() ([]string, error)
	// gatewayController is the name of its controller of Gateways, in its metrics.
	gatewayController string
	// makeChange makes the settings' change (change.go), as the harness's admin.
	makeChange func(ctx context.Context, admin client.Client, s settings) error
}

// result is what one run measured. Windows start when the first Gateway is created:
// "until settled" ends once the controller has sent nothing but watches for the settle
// time after every Gateway was Programmed; the change window, if any, follows it, and
// the steady window follows that.
type result struct {
	Controller string `json:"controller"`
	Gateways   int    `json:"gateways"`
	// AllProgrammedSeconds is when the last Gateway became Programmed at its generation,
	// with an address.
	AllProgrammedSeconds float64 `json:"allProgrammedSeconds"`
	// BusyUntilSeconds is when the controller's last request other than a watch was
	// received, or when every Gateway was Programmed if that came later.
	BusyUntilSeconds float64 `json:"busyUntilSeconds"`
	// Settled is false when the controller was still busy after settle-max.
	Settled         bool    `json:"settled"`
	UntilSettled    tally   `json:"untilSettled"`
	AfterProgrammed tally   `json:"afterProgrammed"`
	Steady          tally   `json:"steady"`
	SteadySeconds   float64 `json:"steadySeconds"`
	// PeakRSSBytes is the controller process's VmHWM at the end of the run (with
	// -restart, the higher of the two processes').
	PeakRSSBytes int64 `json:"peakRSSBytes"`
	// GatewayReconciles is how many reconciles of Gateways the controller ran, by its
	// metrics, until the end of the steady window (with -restart, both processes').
	GatewayReconciles         int     `json:"gatewayReconciles"`
	ControllerCPUSeconds      float64 `json:"controllerCPUSeconds"`
	ControllerSteadyCPU       float64 `json:"controllerSteadyCPUSeconds"`
	APIServerCPUSeconds       float64 `json:"apiServerCPUSeconds"`
	APIServerSteadyCPUSeconds float64 `json:"apiServerSteadyCPUSeconds"`
	// Change is what the change cost; nil without one.
	Change *changeResult `json:"change,omitempty"`
	// Restart is what a restart over the settled fleet cost; nil without -restart.
	Restart *restartResult `json:"restart,omitempty"`
	// Routes is what the routes shape cost; nil without -routes.
	Routes *routesResult `json:"routes,omitempty"`
	// Children counts the objects of the bench class in the cluster at the end, by kind.
	Children map[string]int `json:"children"`
	Folder   string         `json:"folder,omitempty"`
}

// measure runs c on a control plane of its own: it starts the control plane with an
// audit log of c's user, installs the workload, starts c, creates the Gateways and
// waits for them, the settle time and the steady window.
func measure(ctx context.Context, s settings, c contender, round int) (res *result, err error) {
	dir, err := os.MkdirTemp("", "gatewright-bench-"+c.name+"-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if s.keep || err != nil {
			progress(c.name, "logs in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}()
	progress(c.name, "starting a control plane")
	cl, err := startCluster(dir, s.binDir, c.user, s.profileDir != "")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := cl.env.Stop(); err != nil {
			progress(c.name, "stopping the control plane: %v", err)
		}
	}()
	// The harness's own watch ends before the control plane stops.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := c.install(ctx, cl.admin); err != nil {
		return nil, fmt.Errorf("granting %s its rights: %w", c.user, err)
	}
	if err := installWorkload(ctx, cl.admin, s); err != nil {
		return nil, err
	}
	watch, err := watchGateways(ctx, cl.adminCfg, cl.env.Scheme, s.gateways)
	if err != nil {
		return nil, err
	}
	kubeconfig, err := cl.kubeconfig(dir, c.user, c.groups)
	if err != nil {
		return nil, err
	}
	command, err := c.command()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "controller.log")
	proc, err := startController(command, kubeconfig, logPath)
	if err != nil {
		return nil, err
	}
	r := &run{settings: s, round: round, name: c.name, gatewayController: c.gatewayController, makeChange: c.makeChange,
		cluster: cl, watch: watch, audit: &auditLog{path: cl.auditPath}, proc: proc, logPath: logPath, kubeconfig: kubeconfig}
	defer func() { r.proc.stop() }()
	if res, err = r.measure(ctx); err != nil {
		return nil, err
	}
	if s.valuesBytes > 0 {
		stored, err := storedBytes(ctx, cl.admin)
		if err != nil {
			return nil, err
		}
		progress(c.name, "the API server holds, as JSON: %v bytes (ConfigMaps %.1f MiB)", stored, float64(stored["ConfigMap"])/(1<<20))
	}
	if s.keep {
		res.Folder = dir
	}
	return res, nil
}

// measure creates the Gateways once the controller is idle, makes the change if any once
// they have settled, and measures until the end of the steady window.
func (r *run) measure(ctx context.Context) (*result, error) {
	if err := r.awaitIdle(ctx); err != nil {
		return nil, err
	}
	start := time.Now()
	cpu := newCPUMeter(r.proc.cmd.Process.Pid, r.cluster.apiServer)
	var profiler *apiServerProfiler
	if r.profileDir != "" {
		profiler = startAPIServerProfile(r.cluster.debugSocket, filepath.Join(r.profileDir, fmt.Sprintf("round%d-%s-apiserver", r.round, r.name)), profilePiece)
		defer func() { _, _ = profiler.Stop() }()
	}
	if err := createGateways(ctx, r.cluster.admin, r.settings); err != nil {
		return nil, err
	}
	programmed, err := r.awaitProgrammed(ctx, start)
	if err != nil {
		return nil, err
	}
	if profiler != nil {
		pieces, err := profiler.Stop()
		if err != nil {
			return nil, err
		}
		progress(r.name, "%d CPU profiles of the API server, %s each, until all Programmed, in %s", pieces, profilePiece, r.profileDir)
	}
	busyUntil, settled, err := r.awaitSettled(ctx, programmed)
	if err != nil {
		return nil, err
	}
	settledAt := time.Now()
	res := &result{Controller: r.name, Gateways: r.gateways, Settled: settled,
		AllProgrammedSeconds: programmed.Sub(start).Seconds(), BusyUntilSeconds: busyUntil.Sub(start).Seconds()}
	if res.ControllerCPUSeconds, res.APIServerCPUSeconds, err = cpu.sample(); err != nil {
		return nil, err
	}
	steadyStart := settledAt
	if r.routes > 0 {
		if res.Routes, steadyStart, err = r.measureRoutes(ctx, cpu); err != nil {
			return nil, err
		}
	}
	if r.change != noChange {
		if res.Change, steadyStart, err = r.measureChange(ctx, cpu); err != nil {
			return nil, err
		}
	}
	if r.restart {
		if res.PeakRSSBytes, res.GatewayReconciles, err = r.processFigures(ctx); err != nil {
			return nil, err
		}
		if res.Restart, steadyStart, err = r.measureRestart(ctx, cpu); err != nil {
			return nil, err
		}
	}
	progress(r.name, "settled; counting the steady state for %s", r.steady)
	if err := r.sleep(ctx, r.steady); err != nil {
		return nil, err
	}
	steadyEnd := time.Now()
	if res.ControllerSteadyCPU, res.APIServerSteadyCPUSeconds, err = cpu.sample(); err != nil {
		return nil, err
	}
	peak, reconciles, err := r.processFigures(ctx)
	if err != nil {
		return nil, err
	}
	res.PeakRSSBytes, res.GatewayReconciles = max(res.PeakRSSBytes, peak), res.GatewayReconciles+reconciles
	if res.Change != nil {
		// The change's reconciles are its own figure.
		res.GatewayReconciles -= res.Change.GatewayReconciles
	}
	if err := r.audit.read(); err != nil {
		return nil, err
	}
	res.UntilSettled = r.audit.tally(start, settledAt)
	res.AfterProgrammed = r.audit.tally(programmed, settledAt)
	res.Steady = r.audit.tally(steadyStart, steadyEnd)
	res.SteadySeconds = steadyEnd.Sub(steadyStart).Seconds()
	if res.Children, err = countChildren(ctx, r.cluster.admin); err != nil {
		return nil, err
	}
	return res, nil
}

// processFigures are the running controller's peak RSS and its count of reconciles of
// Gateways.
func (r *run) processFigures(ctx context.Context) (peak int64, reconciles int, err error) {
	if peak, err = peakRSS(r.proc.cmd.Process.Pid); err != nil {
		return 0, 0, err
	}
	reconciles, err = gatewayReconciles(ctx, r.proc.cmd.Args, r.gatewayController)
	return peak, reconciles, err
}

// run is one contender's run in progress.
type run struct {
	settings
	round             int
	name              string
	gatewayController string
	makeChange        func(ctx context.Context, admin client.Client, s settings) error
	cluster           *cluster
	watch             *gatewayWatch
	audit             *auditLog
	proc              *controllerProcess
	logPath           string
	kubeconfig        string
}

// awaitIdle waits until the controller has sent its first request and then nothing but
// watches for 3 s: its caches are filled, and what it sends for the Gateways comes after.
func (r *run) awaitIdle(ctx context.Context) error {
	deadline := time.Now().Add(2 * time.Minute)
	var firstSeen time.Time
	for {
		if err := r.audit.read(); err != nil {
			return err
		}
		n, last := r.audit.activity()
		if n > 0 && firstSeen.IsZero() {
			firstSeen = time.Now()
		}
		if n > 0 && time.Since(later(firstSeen, last)) >= 3*time.Second {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the controller was still busy 2 minutes after it started (%d requests; its log: %s)", n, r.logPath)
		}
		if err := r.sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// awaitProgrammed waits until every Gateway is Programmed and returns when that was seen.
func (r *run) awaitProgrammed(ctx context.Context, start time.Time) (time.Time, error) {
	watch := r.watch
	report := time.NewTicker(10 * time.Second)
	defer report.Stop()
	for {
		select {
		case <-watch.all:
			return watch.lastProgrammed(), nil
		case <-report.C:
			if err := r.audit.read(); err != nil {
				return time.Time{}, err
			}
			n, _ := r.audit.activity()
			progress(r.name, "%s: %d of %d Gateways Programmed, %d requests", time.Since(start).Round(time.Second), watch.count(), r.gateways, n)
		case <-r.proc.exited:
			return time.Time{}, r.proc.exitError(r.logPath)
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%d of %d Gateways Programmed: %w", watch.count(), r.gateways, ctx.Err())
		}
	}
}

// awaitSettled waits until the controller has sent nothing but watches for the settle
// time since done (every Gateway Programmed, or a change complete), or settle-max has
// passed. It returns when the last request before the quiet was received, and whether
// the quiet came.
func (r *run) awaitSettled(ctx context.Context, done time.Time) (time.Time, bool, error) {
	for {
		if err := r.audit.read(); err != nil {
			return time.Time{}, false, err
		}
		_, last := r.audit.activity()
		busyUntil := later(last, done)
		if time.Since(busyUntil) >= r.settle {
			return busyUntil, true, nil
		}
		if time.Since(done) >= r.settleMax {
			progress(r.name, "still busy %s after it was done; counting up to now", r.settleMax)
			return busyUntil, false, nil
		}
		if err := r.sleep(ctx, 200*time.Millisecond); err != nil {
			return time.Time{}, false, err
		}
	}
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// sleep waits for d, and fails if the controller exits or ctx ends meanwhile.
func (r *run) sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-r.proc.exited:
		return r.proc.exitError(r.logPath)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// createGateways creates the Gateways, s.parallel at a time.
func createGateways(ctx context.Context, admin client.Client, s settings) error {
	next := make(chan int)
	errs := make([]error, s.parallel)
	var wg sync.WaitGroup
	for w := range s.parallel {
		wg.Go(func() {
			for i := range next {
				if errs[w] == nil {
					gw := gateway(i, s.namespaces)
					if s.routes > 0 {
						allowRoutesFromAll(gw)
					}
					errs[w] = admin.Create(ctx, gw)
				}
			}
		})
	}
	for i := range s.gateways {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// countChildren counts the objects labelled for Gateways of the bench class, by kind.
func countChildren(ctx context.Context, admin client.Client) (map[string]int, error) {
	counts := map[string]int{}
	for _, kind := range []string{"ConfigMap", "Secret", "Service"} {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: kind + "List"})
		if err := admin.List(ctx, list, client.MatchingLabels{"gateway.networking.k8s.io/gateway-class-name": benchClass}); err != nil {
			return nil, err
		}
		counts[kind] = len(list.Items)
	}
	return counts, nil
}

// cpuMeter measures the CPU time the controller and the API server use between samples.
type cpuMeter struct {
	pids []int
	last []float64
}

// follow measures the controller process pid from now on, from its start: a restarted
// controller's CPU time counts from zero.
func (m *cpuMeter) follow(pid int) {
	m.pids[0], m.last[0] = pid, 0
}

func newCPUMeter(pids ...int) *cpuMeter {
	m := &cpuMeter{pids: pids, last: make([]float64, len(pids))}
	_, _ = m.sampleAll()
	return m
}

// sample returns the CPU seconds the controller and the API server used since the last
// sample.
func (m *cpuMeter) sample() (controller, apiServer float64, err error) {
	used, err := m.sampleAll()
	if err != nil {
		return 0, 0, err
	}
	return used[0], used[1], nil
}

func (m *cpuMeter) sampleAll() ([]float64, error) {
	used := make([]float64, len(m.pids))
	for i, pid := range m.pids {
		now, err := cpuSeconds(pid)
		if err != nil {
			return nil, err
		}
		used[i], m.last[i] = now-m.last[i], now
	}
	return used, nil
}

// progress says what a run is doing, on stderr.
func progress(name, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: %s: %s\n", name, fmt.Sprintf(format, args...))
}
