package main

import (
	"bufio"
	"strings"
	"testing"
)

func TestCountReconciles(t *testing.T) {
	metrics := `# HELP controller_runtime_reconcile_total Total number of reconciliations per controller
# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="gateway",result="error"} 2
controller_runtime_reconcile_total{controller="gateway",result="requeue"} 0
controller_runtime_reconcile_total{controller="gateway",result="success"} 1000
controller_runtime_reconcile_total{controller="gatewayclass",result="success"} 779
controller_runtime_reconcile_errors_total{controller="gateway"} 2
`
	got, err := countReconciles(bufio.NewScanner(strings.NewReader(metrics)), "gateway")
	if err != nil || got != 1002 {
		t.Errorf("got %d, %v; want 1002", got, err)
	}
}
