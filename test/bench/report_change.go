package main

import (
	"fmt"
	"io"
)

// changeRows are the figures of the change window: from the edit until every changed
// object was applied, the rollout complete and the controller quiet for the settle time.
func changeRows() []row {
	changed := func(count func(*changeResult) int) func(*result) float64 {
		return func(r *result) float64 { return float64(count(r.Change)) / float64(r.Change.ChangedGateways) }
	}
	total := func(count func(*changeResult) int) func(*result) float64 {
		return func(r *result) float64 { return float64(count(r.Change)) }
	}
	seconds := func(s func(*changeResult) float64) func(*result) float64 {
		return func(r *result) float64 { return s(r.Change) }
	}
	return []row{
		{"change: every changed object applied after (s)", "%.1f", seconds(func(c *changeResult) float64 { return c.AppliedSeconds }), true},
		{"change: rollout complete after (s)", "%.1f", seconds(func(c *changeResult) float64 { return c.RolloutDoneSeconds }), false},
		{"change: busy until: last request, or rollout complete (s)", "%.1f", seconds(func(c *changeResult) float64 { return c.BusyUntilSeconds }), true},
		{"change: writes / changed Gateway", "%.2f", changed(func(c *changeResult) int { return c.Window.Writes }), true},
		{"change: Gateway reconciles / changed Gateway", "%.2f", changed(func(c *changeResult) int { return c.GatewayReconciles }), false},
		{"change: writes", "%.0f", total(func(c *changeResult) int { return c.Window.Writes }), false},
		{"  status writes", "%.0f", total(func(c *changeResult) int { return c.Window.Status }), false},
		{"  event writes", "%.0f", total(func(c *changeResult) int { return c.Window.Events }), false},
		{"  writes for unchanged Gateways", "%.0f", total(func(c *changeResult) int { return c.UnchangedWrites }), false},
		{"change: all requests", "%.0f", total(func(c *changeResult) int { return c.Window.Requests }), true},
		{"change: controller CPU (s)", "%.2f", seconds(func(c *changeResult) float64 { return c.ControllerCPUSeconds }), true},
		{"  controller CPU / changed Gateway (ms)", "%.2f", seconds(func(c *changeResult) float64 {
			return 1000 * c.ControllerCPUSeconds / float64(c.ChangedGateways)
		}), false},
		{"change: API server CPU (s)", "%.2f", seconds(func(c *changeResult) float64 { return c.APIServerCPUSeconds }), true},
	}
}

// printChange writes what the change was and every request of its window by verb and
// resource, in all (not per Gateway: most are one per changed Gateway, some one per wave).
func (rep *report) printChange(w io.Writer, header []string) {
	if len(rep.Results) == 0 {
		return
	}
	c := rep.Results[0].Change
	fmt.Fprintf(w, "\nchange: %s (the blueprint's rollout: %s), reaching %d Gateways; requests by verb and resource from the edit until quiet, in all\n\n",
		c.Change, c.Rollout, c.ChangedGateways)
	rep.printWindow(w, header, func(r *result) tally { return r.Change.Window })
}

// printWindow writes the requests of one window of each result, by verb and resource.
func (rep *report) printWindow(w io.Writer, header []string, window func(*result) tally) {
	byKind := [][]string{header}
	tallies := make([]tally, len(rep.Results))
	for i := range rep.Results {
		tallies[i] = window(rep.Results[i])
	}
	for _, kind := range kinds(tallies...) {
		cells := []string{kind}
		for _, t := range tallies {
			cells = append(cells, fmt.Sprint(t.ByKind[kind]))
		}
		byKind = append(byKind, cells)
	}
	writeTable(w, byKind)
}
