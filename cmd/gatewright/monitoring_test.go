package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/controllers"
	"github.com/gatewright/gatewright/internal/manifest"
	"github.com/gatewright/gatewright/samples"
	"github.com/gatewright/gatewright/test/testenv"
)

// monitoringExpression is one PromQL expression of the shipped dashboard or alerts, and
// where it is.
type monitoringExpression struct {
	where string
	expr  string
}

// TestMonitoringNamesExportedMetrics parses every expression of config/monitoring (the
// chart ships the same files; test/install checks that) with Prometheus' own parser, and
// checks that every metric they name is one the controller exports: it runs
// `gatewright controller` on a control plane with a Gateway whose values are refused, and
// reads what the controller's registry serves on /metrics, controller-runtime's
// reconcile, work queue, client, leader election and process metrics included.
func TestMonitoringNamesExportedMetrics(t *testing.T) {
	named := map[string][]string{} // metric name -> where it is used
	p := parser.NewParser(parser.Options{})
	for _, e := range monitoringExpressions(t) {
		expr, err := p.ParseExpr(grafanaVariables(e.expr))
		if err != nil {
			t.Errorf("%s: %q does not parse: %v", e.where, e.expr, err)
			continue
		}
		for _, name := range metricNames(expr) {
			named[name] = append(named[name], e.where)
		}
	}
	if t.Failed() {
		return
	}
	if len(named) < 20 {
		t.Fatalf("the dashboard and alerts name only %d metrics: %v", len(named), slices.Sorted(func(yield func(string) bool) {
			for name := range named {
				if !yield(name) {
					return
				}
			}
		}))
	}

	exported := runControllerForMetrics(t)
	var missing []string
	deadline := time.Now().Add(90 * time.Second)
	for {
		missing = missing[:0]
		have := exported()
		for name := range named {
			if !have[name] {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	slices.Sort(missing)
	for _, name := range missing {
		t.Errorf("%s is not exported by the controller; used by %s", name, strings.Join(named[name], ", "))
	}
}

// monitoringExpressions reads every PromQL expression of config/monitoring: the
// dashboard's panel targets and variable queries, and the alerts' expr.
func monitoringExpressions(t *testing.T) []monitoringExpression {
	t.Helper()
	dir := filepath.Join(testenv.RepoRoot(), "config", "monitoring")
	data, err := os.ReadFile(filepath.Join(dir, "dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dashboard struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dashboard); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	var out []monitoringExpression
	for _, panel := range dashboard.Panels {
		for _, target := range panel.Targets {
			out = append(out, monitoringExpression{"dashboard panel " + panel.Title, target.Expr})
		}
	}
	labelValues := regexp.MustCompile(`^label_values\((.+),\s*[a-zA-Z_][a-zA-Z0-9_]*\)$`)
	for _, v := range dashboard.Templating.List {
		if v.Type != "query" {
			continue
		}
		query, _ := v.Query.(map[string]any)["query"].(string)
		m := labelValues.FindStringSubmatch(query)
		if m == nil {
			t.Errorf("dashboard variable %s: %q is not label_values(SELECTOR, LABEL)", v.Name, query)
			continue
		}
		out = append(out, monitoringExpression{"dashboard variable " + v.Name, m[1]})
	}

	data, err = os.ReadFile(filepath.Join(dir, "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert string `json:"alert"`
					Expr  string `json:"expr"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &rule); err != nil {
		t.Fatalf("prometheusrule.yaml: %v", err)
	}
	for _, group := range rule.Spec.Groups {
		for _, r := range group.Rules {
			out = append(out, monitoringExpression{"alert " + r.Alert, r.Expr})
		}
	}
	if len(out) == 0 {
		t.Fatal("config/monitoring has no expressions")
	}
	return out
}

// grafanaVariables replaces Grafana's variables with what Grafana puts there: a range for
// the interval variables, and a regular expression matching everything for the others
// (all of them stand in label matchers).
func grafanaVariables(expr string) string {
	return regexp.MustCompile(`\$\{?(\w+)\}?`).ReplaceAllStringFunc(expr, func(v string) string {
		switch strings.Trim(v, "${}") {
		case "__rate_interval", "__interval", "__range":
			return "5m"
		}
		return ".*"
	})
}

// metricNames lists the metric names the selectors of expr name.
func metricNames(expr parser.Expr) []string {
	var names []string
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		for _, m := range vs.LabelMatchers {
			if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
				names = append(names, m.Value)
			}
		}
		return nil
	})
	return names
}

// runControllerForMetrics runs the controller as `gatewright controller --leader-elect`
// does (manager.Run) on a control plane with the provider samples, a Gateway and a GatewayConfig that
// sets a value the blueprint's schema refuses, until the test ends. It returns a function
// that lists the metric names the controller's registry serves now: histograms and
// summaries as Prometheus stores them (_bucket, _sum, _count).
func runControllerForMetrics(t *testing.T) func() map[string]bool {
	t.Helper()
	ctrl.SetLogger(logr.Discard())
	env, cfg, admin, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	ctx, cancel := context.WithCancel(t.Context())
	if err := manifest.ApplyAll(ctx, admin, samples.Provider, "gatewright-test", io.Discard); err != nil {
		t.Fatal(err)
	}
	createAll(t, admin, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: internet
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {replicas: 100}`)

	// The manager of manager.Run, with its leader election, and the registry of the
	// process, which /metrics serves: the test reads it itself. Other tests of this
	// package run controllers of the same names in the process before.
	setup := controllers.Options{ControllerNamespace: defaultControllerNamespace, GatewayWorkers: 4, RouteWorkers: 4, PolicyWorkers: 2}
	options := controllers.ManagerOptions()
	options.Metrics = metricsserver.Options{BindAddress: "0"}
	options.LeaderElection = true
	options.LeaderElectionID = setup.LeaderElectionID()
	options.LeaderElectionNamespace = defaultControllerNamespace
	options.LeaderElectionReleaseOnCancel = true
	options.Controller.SkipNameValidation = ptr.To(true)
	mgr, err := ctrl.NewManager(cfg, options)
	if err != nil {
		t.Fatal(err)
	}
	if err := controllers.Setup(ctx, mgr, setup); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the controller: %v", err)
		}
	})
	return func() map[string]bool {
		families, err := ctrlmetrics.Registry.Gather()
		if err != nil {
			t.Logf("gathering the metrics: %v", err)
		}
		names := map[string]bool{}
		for _, f := range families {
			name := f.GetName()
			names[name] = true
			switch f.GetType() {
			case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
				names[name+"_bucket"], names[name+"_sum"], names[name+"_count"] = true, true, true
			case dto.MetricType_SUMMARY:
				names[name+"_sum"], names[name+"_count"] = true, true
			}
		}
		return names
	}
}
