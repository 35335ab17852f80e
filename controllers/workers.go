package controllers

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/gatewright/gatewright/internal/ctrlutil"
)

// DefaultGatewayWorkers is how many Gateways are reconciled at once unless told
// otherwise. A reconcile spends most of its time waiting on the API server, not on CPU,
// so there can be more workers than cores; the API server's capacity is the limit.
const DefaultGatewayWorkers = 16

// DefaultRouteWorkers is how many HTTPRoutes are reconciled at once unless told otherwise.
const DefaultRouteWorkers = 8

// DefaultPolicyWorkers is how many GatewayClassConfigs, and how many GatewayConfigs, are
// judged at once unless told otherwise: enough that a tenant's policies over many
// Gateways leave another tenant's a worker.
const DefaultPolicyWorkers = 4

// reconcileTimeout ends a reconcile that waits too long on the API server or a cache,
// so that no read can hold a worker forever.
const reconcileTimeout = 2 * time.Minute

func orDefault(n, otherwise int) int {
	if n > 0 {
		return n
	}
	return otherwise
}

// fairlyShared are the options of a controller of workers whose queue shares them
// fairly among namespaces.
func fairlyShared(workers int) controller.Options {
	return controller.Options{MaxConcurrentReconciles: workers, NewQueue: ctrlutil.FairQueue(workers), ReconciliationTimeout: reconcileTimeout}
}
