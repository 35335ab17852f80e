package main

import (
	"fmt"
	"io"
	"slices"
)

// routesRows are the figures of the routes shape: the routes' creation, per route where
// it is one request or more per route, and the edit of one route.
func routesRows() []row {
	seconds := func(s func(*routesResult) float64) func(*result) float64 {
		return func(r *result) float64 { return s(r.Routes) }
	}
	perRoute := func(count func(*routesResult) int) func(*result) float64 {
		return func(r *result) float64 { return float64(count(r.Routes)) / float64(r.Routes.Routes) }
	}
	total := func(count func(*routesResult) int) func(*result) float64 {
		return func(r *result) float64 { return float64(count(r.Routes)) }
	}
	perEdit := func(figure func(*routesResult) float64) func(*result) float64 {
		return func(r *result) float64 { return figure(r.Routes) / float64(len(r.Routes.Edit.AppliedEachSeconds)) }
	}
	return []row{
		{"routes: every route Accepted and held after (s)", "%.1f", seconds(func(r *routesResult) float64 { return r.DoneSeconds }), true},
		{"  all created by the harness after (s)", "%.1f", seconds(func(r *routesResult) float64 { return r.CreatedSeconds }), false},
		{"  every route Accepted after (s)", "%.1f", seconds(func(r *routesResult) float64 { return r.AcceptedSeconds }), true},
		{"  every route held by the routes ConfigMap after (s)", "%.1f", seconds(func(r *routesResult) float64 { return r.HeldSeconds }), true},
		{"routes: busy until: last request, or done (s)", "%.1f", seconds(func(r *routesResult) float64 { return r.BusyUntilSeconds }), true},
		{"routes: writes / route", "%.2f", perRoute(func(r *routesResult) int { return r.Window.Writes }), true},
		{"  status writes / route", "%.2f", perRoute(func(r *routesResult) int { return r.Window.Status }), false},
		{"  event writes / route", "%.2f", perRoute(func(r *routesResult) int { return r.Window.Events }), false},
		{"  ConfigMap writes", "%.0f", total(func(r *routesResult) int {
			return r.Window.ByKind["patch configmaps"] + r.Window.ByKind["update configmaps"]
		}), false},
		{"routes: all requests / route", "%.2f", perRoute(func(r *routesResult) int { return r.Window.Requests }), true},
		{"routes: Gateway reconciles", "%.0f", total(func(r *routesResult) int { return r.GatewayReconciles }), true},
		{"routes: controller CPU (s)", "%.2f", seconds(func(r *routesResult) float64 { return r.ControllerCPUSeconds }), true},
		{"  controller CPU / route (ms)", "%.2f", seconds(func(r *routesResult) float64 { return 1000 * r.ControllerCPUSeconds / float64(r.Routes) }), false},
		{"routes: API server CPU (s)", "%.2f", seconds(func(r *routesResult) float64 { return r.APIServerCPUSeconds }), true},
		{"edit: the route applied after, median of the edits (s)", "%.2f", seconds(func(r *routesResult) float64 { return r.Edit.AppliedSeconds }), true},
		{"  the fastest edit (s)", "%.2f", seconds(func(r *routesResult) float64 { return slices.Min(r.Edit.AppliedEachSeconds) }), false},
		{"  the slowest edit (s)", "%.2f", seconds(func(r *routesResult) float64 { return slices.Max(r.Edit.AppliedEachSeconds) }), false},
		{"edit: busy until, the last edit (s)", "%.1f", seconds(func(r *routesResult) float64 { return r.Edit.BusyUntilSeconds }), false},
		{"edit: writes / edit", "%.1f", perEdit(func(r *routesResult) float64 { return float64(r.Edit.Window.Writes) }), true},
		{"edit: all requests / edit", "%.1f", perEdit(func(r *routesResult) float64 { return float64(r.Edit.Window.Requests) }), true},
		{"edit: Gateway reconciles / edit", "%.1f", perEdit(func(r *routesResult) float64 { return float64(r.Edit.GatewayReconciles) }), false},
		{"edit: controller CPU / edit (s)", "%.3f", perEdit(func(r *routesResult) float64 { return r.Edit.ControllerCPUSeconds }), true},
		{"edit: API server CPU / edit (s)", "%.3f", perEdit(func(r *routesResult) float64 { return r.Edit.APIServerCPUSeconds }), true},
	}
}

// printRoutes writes what the routes shape was and the requests of its two windows by
// verb and resource, in all.
func (rep *report) printRoutes(w io.Writer, header []string) {
	if len(rep.Results) == 0 {
		return
	}
	for _, r := range rep.Results {
		if !r.Routes.Settled || !r.Routes.Edit.Settled {
			fmt.Fprintf(w, "note: %s was still busy when a routes window was closed (-settle-max)\n", r.Controller)
		}
	}
	fmt.Fprintf(w, "\nroutes: %d HTTPRoutes over %d namespaces on one Gateway, created %d at a time; requests by verb and resource from the first created until quiet, in all\n\n",
		rep.Routes, rep.Namespaces, rep.Parallel)
	rep.printWindow(w, header, func(r *result) tally { return r.Routes.Window })
	fmt.Fprintf(w, "\nedit: one route's path changed %d times; requests by verb and resource from the first edit until quiet after the last, in all\n\n", len(rep.Results[0].Routes.Edit.AppliedEachSeconds))
	rep.printWindow(w, header, func(r *result) tally { return r.Routes.Edit.Window })
}
