// Package metrics defines Gatewright's own Prometheus metrics. They are registered on
// controller-runtime's registry, so the manager serves them on /metrics next to its own
// (workqueue, reconcile and client metrics).
//
// Labels stay bounded: kinds, results and reasons are fixed sets; blueprint and template
// names come from the few blueprints a provider writes; GatewayClasses are few. No
// Gateway, route or namespace name is ever a label.
package metrics

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/gatewright/gatewright/internal/routes"
)

// The kind label: what was rendered or applied for, a Gateway or a route of some kind
// (KindOfRoute).
const (
	KindGateway   = "gateway"
	KindHTTPRoute = "httproute"
)

// KindOfRoute is the kind label of a route of kind: httproute, grpcroute, tlsroute,
// tcproute or udproute.
func KindOfRoute(kind string) string { return strings.ToLower(kind) }

// Values of the result and reason labels.
const (
	ResultSuccess   = "success"
	ResultError     = "error"
	ResultConflict  = "conflict"
	ResultChanged   = "changed"
	ResultUnchanged = "unchanged"
	ReasonPruned    = "pruned"
	ReasonCleanup   = "cleanup"
	// TemplateValues is the template label of a render refused before any template ran,
	// because the effective values (or the reference to them) could not be used.
	TemplateValues = "values"
)

// Sub-millisecond to a second: merging values and executing templates are in-memory work.
var computeBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1}

var (
	// Renders counts renders of a Gateway's or an HTTPRoute's templates (values merge and
	// template execution), by kind and result (success, error).
	Renders = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gatewright_renders_total",
		Help: "Renders of a Gateway's or an HTTPRoute's templates, by kind and result.",
	}, []string{"kind", "result"})

	// RenderErrors counts renders refused because of their inputs, by blueprint and
	// template ("gateway/<name>", "httproute/<name>", "gateway/status", "helpers", or
	// "values" when the effective values were refused): where a provider looks first.
	RenderErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gatewright_render_errors_total",
		Help: "Renders refused because of a template or the values, by blueprint and template.",
	}, []string{"blueprint", "template"})

	// Applies counts apply rounds, by kind and result (success; conflict: an object
	// exists that Gatewright does not own; error: the API server refused or failed).
	Applies = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gatewright_applies_total",
		Help: "Apply rounds, by kind and result (success, conflict, error).",
	}, []string{"kind", "result"})

	// AppliedObjects counts the objects of successful apply rounds, by kind and result:
	// changed (created or updated) or unchanged (already as rendered).
	AppliedObjects = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gatewright_applied_objects_total",
		Help: "Objects of successful apply rounds, by kind and result (changed, unchanged).",
	}, []string{"kind", "result"})

	// DeletedObjects counts the rendered objects Gatewright deleted, by kind and reason:
	// pruned (no longer rendered) or cleanup (the Gateway or route went away, left
	// Gatewright, or the route no longer attaches).
	DeletedObjects = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gatewright_deleted_objects_total",
		Help: "Rendered objects deleted, by kind and reason (pruned, cleanup).",
	}, []string{"kind", "reason"})

	// ApplyDuration observes one apply round: the ownership checks, the server-side apply
	// of every object (skipped when all are as rendered) and the prune.
	ApplyDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gatewright_apply_duration_seconds",
		Help:    "Duration of one apply round (ownership checks, server-side apply, prune), by kind.",
		Buckets: prometheus.DefBuckets,
	}, []string{"kind"})

	// ValuesMergeDuration observes the merge of the precedence chain into the effective
	// values of one Gateway or route, schema validation included.
	ValuesMergeDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gatewright_values_merge_duration_seconds",
		Help:    "Duration of merging the effective values of a Gateway or route, by kind.",
		Buckets: computeBuckets,
	}, []string{"kind"})

	// RenderDuration observes the execution of a blueprint's templates for one Gateway or
	// route, decoding of the output included.
	RenderDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gatewright_render_duration_seconds",
		Help:    "Duration of executing a blueprint's templates for a Gateway or route, by kind.",
		Buckets: computeBuckets,
	}, []string{"kind"})

	// SecretReads counts the Secrets read from the API server to judge a listener's
	// certificateRef. Secrets are otherwise watched as metadata only, and a Secret is
	// read again only when its resourceVersion changed: in a steady state this stays flat.
	SecretReads = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "gatewright_secret_reads_total",
		Help: "Secrets read from the API server to judge a listener's certificateRef; one is read again only once it changed.",
	})

	// Gateways is the number of Gateways of each GatewayClass this instance implements by
	// condition type (Accepted, Programmed) and status (True, False, Unknown). It is
	// computed from the cache when scraped, by the leader only (see controllers).
	Gateways = prometheus.NewDesc("gatewright_gateways",
		"Gateways by GatewayClass, condition type (Accepted, Programmed) and status.",
		[]string{"gatewayclass", "type", "status"}, nil)

	// RolloutPhase is 1 for the phase of each blueprint's newest rollout
	// (status.rollout.phase) and 0 for the others: one series per blueprint and phase.
	// Like the gauges below it is read from the blueprints' status when scraped, by the
	// leader of the primary shard only, the one that writes that status.
	RolloutPhase = prometheus.NewDesc("gatewright_blueprint_rollout_phase",
		"1 for the phase of the blueprint's newest rollout (Progressing, Paused, Complete, RolledBack), 0 for the others.",
		[]string{"blueprint", "phase"}, nil)

	// RolloutWave is the wave the blueprint's newest rollout assigned last, counted from 1
	// as gatewright rollout status counts it; 0 before any rollout.
	RolloutWave = prometheus.NewDesc("gatewright_blueprint_rollout_wave",
		"The wave the blueprint's newest rollout assigned last, from 1; 0 before any rollout.",
		[]string{"blueprint"}, nil)

	// CurrentRevision and TargetRevision are the blueprint's status.currentRevision (what
	// its Gateways run) and status.targetRevision (its newest revision).
	CurrentRevision = prometheus.NewDesc("gatewright_blueprint_current_revision",
		"The blueprint's currentRevision: the revision its Gateways run unless a rollout assigned them a newer one.",
		[]string{"blueprint"}, nil)
	TargetRevision = prometheus.NewDesc("gatewright_blueprint_target_revision",
		"The blueprint's targetRevision: its newest revision.",
		[]string{"blueprint"}, nil)

	// RolloutRollbacks counts the rollouts rolled back, by blueprint: a wave that failed
	// its gate, or an abort. Its series starts at zero when the controller first
	// reconciles the blueprint, so that increase() sees the first rollback.
	RolloutRollbacks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gatewright_blueprint_rollbacks_total",
		Help: "Rollouts of a blueprint's revisions rolled back (a wave failed its gate, or an abort), by blueprint.",
	}, []string{"blueprint"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(Renders, RenderErrors, Applies, AppliedObjects, DeletedObjects,
		ApplyDuration, ValuesMergeDuration, RenderDuration, SecretReads, RolloutRollbacks)
	// Every fixed label combination starts at zero, so that rates and alerts see the
	// series from the first scrape on rather than when the first event happens.
	kinds := []string{KindGateway}
	for _, kind := range routes.Kinds {
		kinds = append(kinds, KindOfRoute(kind))
	}
	for _, kind := range kinds {
		for _, result := range []string{ResultSuccess, ResultError} {
			Renders.WithLabelValues(kind, result)
		}
		for _, result := range []string{ResultSuccess, ResultConflict, ResultError} {
			Applies.WithLabelValues(kind, result)
		}
		for _, result := range []string{ResultChanged, ResultUnchanged} {
			AppliedObjects.WithLabelValues(kind, result)
		}
		for _, reason := range []string{ReasonPruned, ReasonCleanup} {
			DeletedObjects.WithLabelValues(kind, reason)
		}
		ApplyDuration.WithLabelValues(kind)
		ValuesMergeDuration.WithLabelValues(kind)
		RenderDuration.WithLabelValues(kind)
	}
}
