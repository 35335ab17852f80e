package main

import (
	"fmt"
	"io"
)

// restartRows are the figures of the restart window.
func restartRows() []row {
	seconds := func(s func(*restartResult) float64) func(*result) float64 {
		return func(r *result) float64 { return s(r.Restart) }
	}
	total := func(count func(*restartResult) int) func(*result) float64 {
		return func(r *result) float64 { return float64(count(r.Restart)) }
	}
	return []row{
		{"restart: old process exited after SIGTERM (s)", "%.1f", seconds(func(x *restartResult) float64 { return x.StopSeconds }), false},
		{"restart: /readyz 200 after (s)", "%.1f", seconds(func(x *restartResult) float64 { return x.ReadySeconds }), false},
		{"restart: first Gateway reconciled after (s)", "%.1f", seconds(func(x *restartResult) float64 { return x.FirstReconcileSeconds }), true},
		{"restart: reconciles ≥ Gateways after (s)", "%.1f", seconds(func(x *restartResult) float64 { return x.AllReconciledSeconds }), true},
		{"restart: busy until: last request (s)", "%.1f", seconds(func(x *restartResult) float64 { return x.BusyUntilSeconds }), true},
		{"restart: writes", "%.0f", total(func(x *restartResult) int { return x.Window.Writes }), false},
		{"  status writes", "%.0f", total(func(x *restartResult) int { return x.Window.Status }), false},
		{"  event writes", "%.0f", total(func(x *restartResult) int { return x.Window.Events }), false},
		{"restart: lists", "%.0f", total(func(x *restartResult) int { return x.Window.Lists }), false},
		{"restart: watches started", "%.0f", total(func(x *restartResult) int { return x.Window.Watches }), false},
		{"restart: GETs", "%.0f", total(func(x *restartResult) int { return x.Window.Gets }), false},
		{"restart: all requests", "%.0f", total(func(x *restartResult) int { return x.Window.Requests }), false},
		{"restart: controller CPU (s)", "%.2f", seconds(func(x *restartResult) float64 { return x.ControllerCPUSeconds }), true},
		{"restart: API server CPU (s)", "%.2f", seconds(func(x *restartResult) float64 { return x.APIServerCPUSeconds }), true},
	}
}

// printRestart writes every request of the restart window by verb and resource, in all.
func (rep *report) printRestart(w io.Writer, header []string) {
	fmt.Fprintf(w, "\nrestart over %d settled Gateways: requests by verb and resource from the new process's start until quiet, in all\n\n", rep.Gateways)
	rep.printWindow(w, header, func(r *result) tally { return r.Restart.Window })
	for _, r := range rep.Results {
		if r.Restart.AllReconciledSeconds == 0 || !r.Restart.Settled {
			fmt.Fprintf(w, "note: %s had not reconciled every Gateway or was still busy when the restart window was closed (-settle-max)\n", r.Controller)
		}
	}
}
