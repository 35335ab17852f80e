package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// metricsFlag is the flag both contenders take the address of their metrics endpoint
// from.
const metricsFlag = "--metrics-bind-address="

// reconcileMetric is controller-runtime's count of reconciles, by controller and result.
const reconcileMetric = "controller_runtime_reconcile_total"

// gatewayReconciles reads from the controller's metrics endpoint how many times its
// controller of Gateways (named gatewayController) reconciled, whatever the result:
// once per Gateway is the least a controller that reacts to each new Gateway can do.
func gatewayReconciles(ctx context.Context, command []string, gatewayController string) (int, error) {
	address := flagValue(command, metricsFlag)
	if address == "" {
		return 0, fmt.Errorf("%s has no %s", command[0], metricsFlag)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+address+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("reading the controller's metrics: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	return countReconciles(bufio.NewScanner(resp.Body), gatewayController)
}

// countReconciles sums the reconcile counts of one controller in Prometheus' text format.
func countReconciles(lines *bufio.Scanner, controller string) (int, error) {
	prefix := reconcileMetric + `{controller="` + controller + `",`
	total := 0
	for lines.Scan() {
		line := lines.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		value, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, fmt.Errorf("%q: %w", line, err)
		}
		total += int(value)
	}
	return total, lines.Err()
}
