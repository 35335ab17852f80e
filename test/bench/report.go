package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// report is the output of one invocation.
type report struct {
	Machine       string    `json:"machine"`
	Gateways      int       `json:"gateways"`
	Namespaces    int       `json:"namespaces"`
	Parallel      int       `json:"parallel"`
	SettleSeconds float64   `json:"settleSeconds"`
	SteadySeconds float64   `json:"steadySeconds"`
	Change        change    `json:"change,omitempty"`
	Rollout       rollout   `json:"rollout,omitempty"`
	Restart       bool      `json:"restart,omitempty"`
	Routes        int       `json:"routes,omitempty"`
	Results       []*result `json:"results"`
}

// row is one line of the table: a figure of each result.
type row struct {
	name   string
	format string // for fmt, of a float64
	value  func(*result) float64
	// ratio prints the ratio of the last result to the first.
	ratio bool
}

func (rep *report) rows() []row {
	n := float64(rep.Gateways)
	perGateway := func(count func(*result) int) func(*result) float64 {
		return func(r *result) float64 { return float64(count(r)) / n }
	}
	rows := []row{
		{"all Programmed after (s)", "%.1f", func(r *result) float64 { return r.AllProgrammedSeconds }, true},
		{"busy until: last request, or all Programmed (s)", "%.1f", func(r *result) float64 { return r.BusyUntilSeconds }, true},
		{"writes / Gateway (creation → settled)", "%.2f", perGateway(func(r *result) int { return r.UntilSettled.Writes }), true},
		{"  status writes / Gateway", "%.2f", perGateway(func(r *result) int { return r.UntilSettled.Status }), false},
		{"  event writes / Gateway", "%.2f", perGateway(func(r *result) int { return r.UntilSettled.Events }), false},
		{"  writes after all Programmed / Gateway", "%.2f", perGateway(func(r *result) int { return r.AfterProgrammed.Writes }), false},
		{"GETs / Gateway", "%.2f", perGateway(func(r *result) int { return r.UntilSettled.Gets }), false},
		{"dry runs / Gateway", "%.2f", perGateway(func(r *result) int { return r.UntilSettled.DryRuns }), false},
		{"lists", "%.0f", func(r *result) float64 { return float64(r.UntilSettled.Lists) }, false},
		{"watches started", "%.0f", func(r *result) float64 { return float64(r.UntilSettled.Watches) }, false},
		{"discovery requests", "%.0f", func(r *result) float64 { return float64(r.UntilSettled.Discovery) }, false},
		{"failed requests (4xx, 5xx)", "%.0f", func(r *result) float64 { return float64(r.UntilSettled.Failed) }, false},
		{"all requests / Gateway", "%.2f", perGateway(func(r *result) int { return r.UntilSettled.Requests }), true},
		{fmt.Sprintf("steady-state writes (%.0f s)", rep.SteadySeconds), "%.0f", func(r *result) float64 { return float64(r.Steady.Writes) }, false},
		{fmt.Sprintf("steady-state requests (%.0f s)", rep.SteadySeconds), "%.0f", func(r *result) float64 { return float64(r.Steady.Requests) }, false},
		{"Gateway reconciles / Gateway", "%.2f", perGateway(func(r *result) int { return r.GatewayReconciles }), true},
		{"controller peak RSS (MiB)", "%.1f", func(r *result) float64 { return float64(r.PeakRSSBytes) / (1 << 20) }, true},
		{"controller CPU, creation → settled (s)", "%.2f", func(r *result) float64 { return r.ControllerCPUSeconds }, true},
		{"controller CPU, steady (s)", "%.2f", func(r *result) float64 { return r.ControllerSteadyCPU }, false},
		{"API server CPU, creation → settled (s)", "%.2f", func(r *result) float64 { return r.APIServerCPUSeconds }, true},
		{"API server CPU, steady (s)", "%.2f", func(r *result) float64 { return r.APIServerSteadyCPUSeconds }, false},
	}
	if rep.Change != noChange {
		rows = append(rows, changeRows()...)
	}
	if rep.Restart {
		rows = append(rows, restartRows()...)
	}
	if rep.Routes > 0 {
		rows = append(rows, routesRows()...)
	}
	return rows
}

// print writes the report as tables: the figures, then the requests by verb and
// resource.
func (rep *report) print(w io.Writer) {
	fmt.Fprintf(w, "%d Gateways in %d namespaces, created %d at a time; 5 children each (3 ConfigMaps, 1 Secret, 1 ClusterIP Service)\n",
		rep.Gateways, rep.Namespaces, rep.Parallel)
	fmt.Fprintf(w, "settled: %.0f s without requests other than watches; machine: %s\n\n", rep.SettleSeconds, rep.Machine)
	both := len(rep.Results) > 1
	header := []string{""}
	for _, r := range rep.Results {
		header = append(header, r.Controller)
	}
	figures := [][]string{header}
	if both {
		figures[0] = append(figures[0], "ratio")
	}
	for _, row := range rep.rows() {
		cells := []string{row.name}
		for _, r := range rep.Results {
			cells = append(cells, fmt.Sprintf(row.format, row.value(r)))
		}
		if both {
			cells = append(cells, ratio(row, rep.Results[0], rep.Results[len(rep.Results)-1]))
		}
		figures = append(figures, cells)
	}
	children := []string{"children at the end (ConfigMaps/Secrets/Services)"}
	for _, r := range rep.Results {
		children = append(children, fmt.Sprintf("%d/%d/%d", r.Children["ConfigMap"], r.Children["Secret"], r.Children["Service"]))
	}
	if both {
		children = append(children, "")
	}
	writeTable(w, append(figures, children))
	for _, r := range rep.Results {
		if !r.Settled {
			fmt.Fprintf(w, "note: %s was still busy when the creation window was closed (-settle-max)\n", r.Controller)
		}
	}

	fmt.Fprintf(w, "\nrequests by verb and resource per Gateway, creation → settled\n\n")
	byKind := [][]string{header}
	tallies := make([]tally, len(rep.Results))
	for i, r := range rep.Results {
		tallies[i] = r.UntilSettled
	}
	for _, kind := range kinds(tallies...) {
		cells := []string{kind}
		for _, t := range tallies {
			cells = append(cells, fmt.Sprintf("%.2f", float64(t.ByKind[kind])/float64(rep.Gateways)))
		}
		byKind = append(byKind, cells)
	}
	writeTable(w, byKind)
	if rep.Change != noChange {
		rep.printChange(w, header)
	}
	if rep.Restart {
		rep.printRestart(w, header)
	}
	if rep.Routes > 0 {
		rep.printRoutes(w, header)
	}
}

// ratio is last / first for rows that compare, as "2.4×".
func ratio(row row, first, last *result) string {
	if !row.ratio || row.value(first) == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", row.value(last)/row.value(first))
}

// printRatios says how the time to all Programmed compared in each round, and the
// median: the machine's speed moves single runs, and Gatewright's, which ask more of the
// API server, more than the floor's.
func printRatios(w io.Writer, what string, ratios []float64) {
	cells := make([]string, len(ratios))
	for i, r := range ratios {
		cells[i] = fmt.Sprintf("%.2f×", r)
	}
	fmt.Fprintf(w, "%s, gatewright / floor, by round: %s; median %.2f×\n", what, strings.Join(cells, " "), median(ratios))
}

// headlineSeconds is the time a run's shape is judged by: until every route was
// Accepted and held in the routes shape, else until all Gateways were Programmed.
func headlineSeconds(r *result) float64 {
	if r.Routes != nil {
		return r.Routes.DoneSeconds
	}
	return r.AllProgrammedSeconds
}

// median of values, which it sorts.
func median(values []float64) float64 {
	sort.Float64s(values)
	mid := len(values) / 2
	if len(values)%2 == 1 {
		return values[mid]
	}
	return (values[mid-1] + values[mid]) / 2
}

// writeTable writes rows of cells in columns, the first aligned left, the others right.
func writeTable(w io.Writer, rows [][]string) {
	var widths []int
	for _, cells := range rows {
		for i, cell := range cells {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, cells := range rows {
		line := ""
		for i, cell := range cells {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if i == 0 {
				line += cell + pad
			} else {
				line += "  " + pad + cell
			}
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}
