package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"time"
)

// probeFlag is the flag both contenders take the address of their /readyz endpoint from.
const probeFlag = "--health-probe-bind-address="

// restartResult is what a restart of the controller over the settled fleet cost (issue
// 29, item 4), from the new process's start until it had sent nothing but watches for
// the settle time after reconciling every Gateway. A settled fleet needs no writes.
type restartResult struct {
	// StopSeconds is how long the old process took to exit after SIGTERM.
	StopSeconds float64 `json:"stopSeconds"`
	// ReadySeconds is when /readyz first answered 200: Gatewright's caches had synced
	// (the floor's is a ping: its probe server was up).
	ReadySeconds float64 `json:"readySeconds"`
	// FirstReconcileSeconds is when the metrics first counted a reconcile of a Gateway:
	// its caches had synced and its workers had started.
	FirstReconcileSeconds float64 `json:"firstReconcileSeconds"`
	// AllReconciledSeconds is when the metrics first counted as many reconciles of
	// Gateways as there are Gateways; 0 if that never came within settle-max.
	AllReconciledSeconds float64 `json:"allReconciledSeconds"`
	// BusyUntilSeconds is when the last request other than a watch was received, or
	// AllReconciledSeconds if that came later.
	BusyUntilSeconds     float64 `json:"busyUntilSeconds"`
	Settled              bool    `json:"settled"`
	Window               tally   `json:"window"`
	ControllerCPUSeconds float64 `json:"controllerCPUSeconds"`
	APIServerCPUSeconds  float64 `json:"apiServerCPUSeconds"`
}

// restartMilestones are the moments of a restart, as the harness polls them.
type restartMilestones struct {
	ready, firstReconcile, allReconciled time.Time
}

// measureRestart stops the controller, starts it again with the same command, and
// waits until it has reconciled every Gateway and is quiet. It returns when the window
// ended. r.proc is the new process afterwards.
func (r *run) measureRestart(ctx context.Context, cpu *cpuMeter) (*restartResult, time.Time, error) {
	progress(r.name, "restarting the controller over %d settled Gateways", r.gateways)
	command := r.proc.cmd.Args
	stopping := time.Now()
	r.proc.stop()
	res := &restartResult{StopSeconds: time.Since(stopping).Seconds()}
	r.logPath = filepath.Join(filepath.Dir(r.logPath), "controller-restarted.log")
	start := time.Now()
	proc, err := startController(command, r.kubeconfig, r.logPath)
	if err != nil {
		return nil, time.Time{}, err
	}
	r.proc = proc
	cpu.follow(proc.cmd.Process.Pid)
	if _, _, err := cpu.sample(); err != nil {
		return nil, time.Time{}, err
	}
	m, err := r.awaitReconciled(ctx, command, start)
	if err != nil {
		return nil, time.Time{}, err
	}
	// Every Gateway reconciled, or settle-max passed: now.
	busyUntil, settled, err := r.awaitSettled(ctx, time.Now())
	if err != nil {
		return nil, time.Time{}, err
	}
	end := time.Now()
	res.ReadySeconds = sinceOrZero(m.ready, start)
	res.FirstReconcileSeconds = sinceOrZero(m.firstReconcile, start)
	res.AllReconciledSeconds = sinceOrZero(m.allReconciled, start)
	res.BusyUntilSeconds, res.Settled = busyUntil.Sub(start).Seconds(), settled
	if res.ControllerCPUSeconds, res.APIServerCPUSeconds, err = cpu.sample(); err != nil {
		return nil, time.Time{}, err
	}
	if err := r.audit.read(); err != nil {
		return nil, time.Time{}, err
	}
	res.Window = r.audit.tally(start, end)
	return res, end, nil
}

// awaitReconciled polls the new process's /readyz and metrics every 100 ms until it has
// reconciled as many Gateways as there are, or settle-max has passed since it started.
func (r *run) awaitReconciled(ctx context.Context, command []string, start time.Time) (restartMilestones, error) {
	var m restartMilestones
	probe := flagValue(command, probeFlag)
	for {
		now := time.Now()
		if m.ready.IsZero() && probe != "" && readyzAnswers(ctx, probe) {
			m.ready = now
		}
		// Until the metrics server is up, this fails; it counts as no reconcile yet.
		n, _ := gatewayReconciles(ctx, command, r.gatewayController)
		if n > 0 && m.firstReconcile.IsZero() {
			m.firstReconcile = now
		}
		if n >= r.gateways {
			m.allReconciled = now
			return m, nil
		}
		if time.Since(start) >= r.settleMax {
			progress(r.name, "%d of %d Gateways reconciled %s after the restart; counting up to now", n, r.gateways, r.settleMax)
			return m, nil
		}
		if err := r.sleep(ctx, 100*time.Millisecond); err != nil {
			return m, err
		}
	}
}

// readyzAnswers says whether GET /readyz at address answers 200.
func readyzAnswers(ctx context.Context, address string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+address+"/readyz", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// flagValue is the value of the last argument of command that starts with flag, or "".
func flagValue(command []string, flag string) string {
	value := ""
	for _, arg := range command {
		if v, ok := strings.CutPrefix(arg, flag); ok {
			value = v
		}
	}
	return value
}

// sinceOrZero is t - start in seconds, or 0 if t never came.
func sinceOrZero(t, start time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return t.Sub(start).Seconds()
}
