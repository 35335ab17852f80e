package ctrlutil

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/gatewright/gatewright/internal/fairness"
)

// FairQueue gives a controller internal/fairness's queue, whose groups are namespaces:
// a namespace alone gets every worker, and one that gets work while all are busy takes
// the next worker freed, before the busy namespaces' backlogs, with no reconcile put
// back on a timer while it waits for its share. That wait is one reconcile, bounded by
// the render budget and the reconcile timeout. Cluster-scoped objects share the group "".
func FairQueue(workers int) func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	return func(name string, limiter workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		return fairness.New(fairness.Options[reconcile.Request]{
			Workers:     workers,
			Group:       func(req reconcile.Request) string { return req.Namespace },
			RateLimiter: limiter,
			Depth:       queueDepth.WithLabelValues(name),
		})
	}
}

// queueDepth stands in for controller-runtime's workqueue_depth, which only its own
// queues report.
var queueDepth = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "gatewright_workqueue_depth",
	Help: "Items ready and waiting for a worker in a fairly shared queue, by controller.",
}, []string{"controller"})

func init() { ctrlmetrics.Registry.MustRegister(queueDepth) }
