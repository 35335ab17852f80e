package metrics

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// CacheCollector reports series it computes from the controller's cache at every
// scrape. A gauge kept up to date by a reconciler would have to see every delete, class
// change and status edit, and start over right after a restart; computing from what the
// cache holds is right by construction, and a deleted object simply is not counted any
// more.
//
// It reports only while this instance leads: it runs as a leader-election runnable, so
// that summing over replicas counts each object once. Its Describe sends nothing, which
// makes it an unchecked collector: several instances in one process (one per shard) may
// each register one, and their series never collide as their classes do not overlap.
type CacheCollector struct {
	leading atomic.Bool
	// collect sends the series; what, for a failure's log line, is what it reports.
	collect func(ctx context.Context, ch chan<- prometheus.Metric) error
	what    string
}

func (c *CacheCollector) NeedLeaderElection() bool { return true }

// Start marks the collector as reporting until ctx ends, that is while this instance
// leads and runs.
func (c *CacheCollector) Start(ctx context.Context) error {
	c.leading.Store(true)
	<-ctx.Done()
	c.leading.Store(false)
	return nil
}

func (c *CacheCollector) Describe(chan<- *prometheus.Desc) {}

func (c *CacheCollector) Collect(ch chan<- prometheus.Metric) {
	if !c.leading.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.collect(ctx, ch); err != nil {
		log.FromContext(ctx).Error(err, "reading the cache for "+c.what)
	}
}

// gatewayConditionTypes are the conditions gatewright_gateways counts.
var gatewayConditionTypes = []string{string(gatewayv1.GatewayConditionAccepted), string(gatewayv1.GatewayConditionProgrammed)}

// GatewayConditions reports gatewright_gateways: the Gateways of the classes owned
// says this instance implements, by condition; a condition that is missing counts as
// Unknown.
func GatewayConditions(reader client.Reader, owned func(*gatewayv1.GatewayClass) bool) *CacheCollector {
	type key struct{ class, conditionType, status string }
	return &CacheCollector{what: "gatewright_gateways", collect: func(ctx context.Context, ch chan<- prometheus.Metric) error {
		var classes gatewayv1.GatewayClassList
		if err := reader.List(ctx, &classes, client.UnsafeDisableDeepCopy); err != nil {
			return err
		}
		ours := map[string]bool{}
		for i := range classes.Items {
			if owned(&classes.Items[i]) {
				ours[classes.Items[i].Name] = true
			}
		}
		var gateways gatewayv1.GatewayList
		if err := reader.List(ctx, &gateways, client.UnsafeDisableDeepCopy); err != nil {
			return err
		}
		counts := map[key]int{}
		for _, gw := range gateways.Items {
			class := string(gw.Spec.GatewayClassName)
			if !ours[class] {
				continue
			}
			for _, t := range gatewayConditionTypes {
				status := string(metav1.ConditionUnknown)
				if cond := meta.FindStatusCondition(gw.Status.Conditions, t); cond != nil {
					status = string(cond.Status)
				}
				counts[key{class, t, status}]++
			}
		}
		// Every class, condition type and status has a series, in order, zeros included.
		for _, class := range slices.Sorted(maps.Keys(ours)) {
			for _, t := range gatewayConditionTypes {
				for _, status := range []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown} {
					ch <- prometheus.MustNewConstMetric(Gateways, prometheus.GaugeValue, float64(counts[key{class, t, string(status)}]), class, t, string(status))
				}
			}
		}
		return nil
	}}
}

// rolloutPhases are the phases gatewright_blueprint_rollout_phase has a series for.
var rolloutPhases = []gatewrightv1alpha1.RolloutPhase{
	gatewrightv1alpha1.RolloutProgressing, gatewrightv1alpha1.RolloutPaused,
	gatewrightv1alpha1.RolloutComplete, gatewrightv1alpha1.RolloutRolledBack,
}

// BlueprintRollouts reports each blueprint's rollout (its phase, its wave, its current
// and target revisions) from the blueprints' status: the rollout engine writes that
// status and nothing more, and a deleted blueprint stops being reported at once. It
// reports while primary says this instance writes blueprint status, so that a sum over
// replicas and shards counts each blueprint once.
func BlueprintRollouts(reader client.Reader, primary func(context.Context) (bool, error)) *CacheCollector {
	return &CacheCollector{what: "the blueprint rollout metrics", collect: func(ctx context.Context, ch chan<- prometheus.Metric) error {
		if writes, err := primary(ctx); err != nil || !writes {
			return err
		}
		var blueprints gatewrightv1alpha1.GatewayClassBlueprintList
		if err := reader.List(ctx, &blueprints, client.UnsafeDisableDeepCopy); err != nil {
			return err
		}
		slices.SortFunc(blueprints.Items, func(a, b gatewrightv1alpha1.GatewayClassBlueprint) int { return strings.Compare(a.Name, b.Name) })
		for i := range blueprints.Items {
			bp := &blueprints.Items[i]
			st := bp.Status.Rollout
			for _, phase := range rolloutPhases {
				ch <- prometheus.MustNewConstMetric(RolloutPhase, prometheus.GaugeValue, oneIf(st != nil && st.Phase == phase), bp.Name, string(phase))
			}
			wave := 0.0
			if st != nil {
				wave = float64(st.Wave) + 1
			}
			ch <- prometheus.MustNewConstMetric(RolloutWave, prometheus.GaugeValue, wave, bp.Name)
			ch <- prometheus.MustNewConstMetric(CurrentRevision, prometheus.GaugeValue, float64(bp.Status.CurrentRevision), bp.Name)
			ch <- prometheus.MustNewConstMetric(TargetRevision, prometheus.GaugeValue, float64(bp.Status.TargetRevision), bp.Name)
		}
		return nil
	}}
}

func oneIf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// CountRollback counts, once the status that says so is written, a step that rolled
// blueprint's rollout back; any step makes sure the blueprint's series exists, at zero
// until its first rollback.
func CountRollback(blueprint string, before, after *gatewrightv1alpha1.BlueprintRolloutStatus) {
	counter := RolloutRollbacks.WithLabelValues(blueprint)
	if after == nil || after.Phase != gatewrightv1alpha1.RolloutRolledBack {
		return
	}
	if before == nil || before.Revision != after.Revision || before.Phase != gatewrightv1alpha1.RolloutRolledBack {
		counter.Inc()
	}
}

// ForgetRollbacks drops a deleted blueprint's rollback count.
func ForgetRollbacks(blueprint string) {
	RolloutRollbacks.DeleteLabelValues(blueprint)
}
