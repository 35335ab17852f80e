package controllers

import (
	"context"
	"errors"
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
	"sigs.k8s.io/controller-runtime/pkg/manager"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/translate"
)

// countRender counts one render of kind with blueprint and, when its inputs refused it,
// where: the failing template, or "values".
func countRender(kind, blueprint string, err error) {
	if err == nil {
		metrics.Renders.WithLabelValues(kind, metrics.ResultSuccess).Inc()
		return
	}
	metrics.Renders.WithLabelValues(kind, metrics.ResultError).Inc()
	if !isInputError(err) {
		return // reading the cluster failed: nothing for the blueprint's author to fix
	}
	template := metrics.TemplateValues
	var renderErr *render.Error
	if errors.As(err, &renderErr) {
		template = renderErr.Template
	}
	metrics.RenderErrors.WithLabelValues(blueprint, template).Inc()
}

// countApply counts one apply round of kind that took since start, and the objects it
// changed and deleted: also those of a round whose last record write failed (res is
// then not nil), since the next round finds them done.
func countApply(kind string, start time.Time, res *apply.Result, err error) {
	metrics.ApplyDuration.WithLabelValues(kind).Observe(time.Since(start).Seconds())
	var conflict *apply.ConflictError
	switch {
	case errors.As(err, &conflict):
		metrics.Applies.WithLabelValues(kind, metrics.ResultConflict).Inc()
	case err != nil:
		metrics.Applies.WithLabelValues(kind, metrics.ResultError).Inc()
	default:
		metrics.Applies.WithLabelValues(kind, metrics.ResultSuccess).Inc()
	}
	if res != nil {
		metrics.AppliedObjects.WithLabelValues(kind, metrics.ResultChanged).Add(float64(len(res.Changed)))
		metrics.AppliedObjects.WithLabelValues(kind, metrics.ResultUnchanged).Add(float64(len(res.Applied) - len(res.Changed)))
		metrics.DeletedObjects.WithLabelValues(kind, metrics.ReasonPruned).Add(float64(len(res.Pruned)))
	}
}

// countCleanup counts the objects deleted because their Gateway or route went away.
func countCleanup(kind string, deleted []string) {
	metrics.DeletedObjects.WithLabelValues(kind, metrics.ReasonCleanup).Add(float64(len(deleted)))
}

// observeTranslation records how long the values and the render of res took.
func observeTranslation(kind string, res *translate.Result) {
	metrics.ValuesMergeDuration.WithLabelValues(kind).Observe(res.ValuesTook.Seconds())
	if res.RenderTook > 0 { // it rendered
		metrics.RenderDuration.WithLabelValues(kind).Observe(res.RenderTook.Seconds())
	}
}

// gatewayConditionTypes are the conditions gatewright_gateways counts.
var gatewayConditionTypes = []string{string(gatewayv1.GatewayConditionAccepted), string(gatewayv1.GatewayConditionProgrammed)}

// leaderCollector is a collector that reports only while this instance leads.
type leaderCollector interface {
	prometheus.Collector
	manager.LeaderElectionRunnable
	manager.Runnable
}

// leadership is what a collector that reports from the cache needs to report only while
// this instance leads: it runs as a leader-election runnable, so that summing over
// replicas counts each object once.
type leadership struct {
	leading atomic.Bool
}

func (l *leadership) NeedLeaderElection() bool { return true }

// Start marks the collector as reporting until ctx ends, that is while this instance
// leads and runs.
func (l *leadership) Start(ctx context.Context) error {
	l.leading.Store(true)
	<-ctx.Done()
	l.leading.Store(false)
	return nil
}

// gatewayConditions computes gatewright_gateways from the cache at every scrape. A gauge
// kept up to date by the reconciler would have to see every delete, class change and
// status edit, and start over right after a restart; counting what the cache holds is
// right by construction, and a deleted Gateway or class simply is not counted any more.
//
// It reports only while this instance leads (leadership). Its Describe sends nothing,
// which makes it an unchecked collector: several instances in one process (one per
// shard) may each register one, and their series never collide as their classes do not
// overlap.
type gatewayConditions struct {
	leadership
	reader client.Reader
	shard  shard
}

func (c *gatewayConditions) Describe(chan<- *prometheus.Desc) {}

func (c *gatewayConditions) Collect(ch chan<- prometheus.Metric) {
	if !c.leading.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	counts, err := c.count(ctx)
	if err != nil {
		log.FromContext(ctx).Error(err, "counting Gateways by condition for gatewright_gateways")
		return
	}
	for _, key := range counts.keys {
		ch <- prometheus.MustNewConstMetric(metrics.Gateways, prometheus.GaugeValue, float64(counts.n[key]), key.class, key.conditionType, key.status)
	}
}

type conditionKey struct{ class, conditionType, status string }

type conditionCounts struct {
	keys []conditionKey // every class of the shard, condition type and status, in order
	n    map[conditionKey]int
}

// count counts the Gateways of the shard's classes by condition; a condition that is
// missing counts as Unknown.
func (c *gatewayConditions) count(ctx context.Context) (*conditionCounts, error) {
	var classes gatewayv1.GatewayClassList
	if err := c.reader.List(ctx, &classes, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	counts := &conditionCounts{n: map[conditionKey]int{}}
	ours := map[string]bool{}
	for i := range classes.Items {
		if c.shard.ownership(&classes.Items[i]) == ownedHere {
			ours[classes.Items[i].Name] = true
		}
	}
	for _, class := range slices.Sorted(maps.Keys(ours)) {
		for _, t := range gatewayConditionTypes {
			for _, status := range []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown} {
				counts.keys = append(counts.keys, conditionKey{class, t, string(status)})
			}
		}
	}
	var gateways gatewayv1.GatewayList
	if err := c.reader.List(ctx, &gateways, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
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
			counts.n[conditionKey{class, t, status}]++
		}
	}
	return counts, nil
}

// rolloutPhases are the phases gatewright_blueprint_rollout_phase has a series for.
var rolloutPhases = []gatewrightv1alpha1.RolloutPhase{
	gatewrightv1alpha1.RolloutProgressing, gatewrightv1alpha1.RolloutPaused,
	gatewrightv1alpha1.RolloutComplete, gatewrightv1alpha1.RolloutRolledBack,
}

// blueprintRollouts reports each blueprint's rollout (its phase, its wave, its current
// and target revisions) from the blueprints' status in the cache at every scrape, as
// gatewayConditions counts Gateways: the rollout engine writes that status and nothing
// more, and a deleted blueprint stops being reported at once. It reports while this
// instance leads the primary shard, the one that writes blueprint status, so that a sum
// over replicas and shards counts each blueprint once. Unchecked, as gatewayConditions.
type blueprintRollouts struct {
	leadership
	reader client.Reader
	shard  shard
}

func (c *blueprintRollouts) Describe(chan<- *prometheus.Desc) {}

func (c *blueprintRollouts) Collect(ch chan<- prometheus.Metric) {
	if !c.leading.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if primary, err := c.shard.primary(ctx, c.reader); err != nil || !primary {
		if err != nil {
			log.FromContext(ctx).Error(err, "telling whether this shard is primary for the blueprint rollout metrics")
		}
		return
	}
	var blueprints gatewrightv1alpha1.GatewayClassBlueprintList
	if err := c.reader.List(ctx, &blueprints, client.UnsafeDisableDeepCopy); err != nil {
		log.FromContext(ctx).Error(err, "listing blueprints for the blueprint rollout metrics")
		return
	}
	slices.SortFunc(blueprints.Items, func(a, b gatewrightv1alpha1.GatewayClassBlueprint) int { return strings.Compare(a.Name, b.Name) })
	for i := range blueprints.Items {
		bp := &blueprints.Items[i]
		st := bp.Status.Rollout
		for _, phase := range rolloutPhases {
			ch <- prometheus.MustNewConstMetric(metrics.RolloutPhase, prometheus.GaugeValue, oneIf(st != nil && st.Phase == phase), bp.Name, string(phase))
		}
		wave := 0.0
		if st != nil {
			wave = float64(st.Wave) + 1
		}
		ch <- prometheus.MustNewConstMetric(metrics.RolloutWave, prometheus.GaugeValue, wave, bp.Name)
		ch <- prometheus.MustNewConstMetric(metrics.CurrentRevision, prometheus.GaugeValue, float64(bp.Status.CurrentRevision), bp.Name)
		ch <- prometheus.MustNewConstMetric(metrics.TargetRevision, prometheus.GaugeValue, float64(bp.Status.TargetRevision), bp.Name)
	}
}

func oneIf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// countRollback counts, once the status that says so is written, a step that rolled
// blueprint's rollout back; any step makes sure the blueprint's series exists, at zero
// until its first rollback.
func countRollback(blueprint string, before, after *gatewrightv1alpha1.BlueprintRolloutStatus) {
	counter := metrics.RolloutRollbacks.WithLabelValues(blueprint)
	if after == nil || after.Phase != gatewrightv1alpha1.RolloutRolledBack {
		return
	}
	if before == nil || before.Revision != after.Revision || before.Phase != gatewrightv1alpha1.RolloutRolledBack {
		counter.Inc()
	}
}

// forgetRollbacks drops a deleted blueprint's rollback count.
func forgetRollbacks(blueprint string) {
	metrics.RolloutRollbacks.DeleteLabelValues(blueprint)
}
