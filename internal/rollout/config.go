package rollout

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/conditions"
)

// DefaultWaves are the waves of a blueprint that sets none: one Gateway, then 10%, 50%
// and the rest.
var DefaultWaves = []string{"1", "10%", "50%", "100%"}

const (
	defaultSoak         = 30 * time.Second
	defaultGateDeadline = 300 * time.Second
)

// Config is a blueprint's spec.rollout with its defaults applied.
type Config struct {
	// Waves are cumulative sizes, counts or percentages; AllAtOnce is the single wave 100%.
	Waves        []string
	Soak         time.Duration
	GateDeadline time.Duration
	// OrderLabel is the namespace label whose value orders the Gateways; "" for none.
	OrderLabel string
	Paused     bool
	// Promote and Abort are the revisions the provider asked to promote or abort
	// (the blueprint's annotations), 0 for none.
	Promote, Abort int64
	// ForcePromote is the revision the provider asked to promote though its rollout was
	// rolled back, 0 for none (Reopened).
	ForcePromote int64
	// Unreadable says which of those annotations is not a revision number; such an
	// annotation holds the rollout as Paused does.
	Unreadable string
}

// ConfigFrom applies the API's defaults to spec (nil for a blueprint without a rollout
// block), so a blueprint stored before the block existed rolls out in the default waves.
func ConfigFrom(spec *gatewrightv1alpha1.BlueprintRollout) Config {
	cfg := Config{Waves: DefaultWaves, Soak: defaultSoak, GateDeadline: defaultGateDeadline}
	if spec == nil {
		return cfg
	}
	if len(spec.Waves) > 0 {
		cfg.Waves = spec.Waves
	}
	if spec.SoakSeconds > 0 {
		cfg.Soak = time.Duration(spec.SoakSeconds) * time.Second
	}
	if spec.GateDeadlineSeconds > 0 {
		cfg.GateDeadline = time.Duration(spec.GateDeadlineSeconds) * time.Second
	}
	if spec.Order != nil {
		cfg.OrderLabel = spec.Order.NamespaceLabel
	}
	cfg.Paused = spec.Paused
	if spec.Strategy == gatewrightv1alpha1.RolloutAllAtOnce {
		// All at once completes as soon as every Gateway is healthy: there is no later
		// wave for a soak to protect.
		cfg.Waves = []string{"100%"}
		cfg.Soak = 0
	}
	return cfg
}

// ConfigOf is bp's rollout configuration: its spec.rollout with the defaults, and the
// promote and abort its annotations ask for. An annotation that is not a revision number
// holds the rollout (Unreadable): the provider asked to stop or to hurry, and which
// revision is meant cannot be told, so neither a next wave nor a rollback is guessed.
func ConfigOf(bp *gatewrightv1alpha1.GatewayClassBlueprint) Config {
	cfg := ConfigFrom(bp.Spec.Rollout)
	var unreadable []string
	cfg.Promote = annotatedRevision(bp.Annotations, gatewrightv1alpha1.AnnotationRolloutPromote, &unreadable)
	cfg.Abort = annotatedRevision(bp.Annotations, gatewrightv1alpha1.AnnotationRolloutAbort, &unreadable)
	cfg.ForcePromote = annotatedRevision(bp.Annotations, gatewrightv1alpha1.AnnotationRolloutForcePromote, &unreadable)
	if len(unreadable) > 0 {
		cfg.Unreadable = strings.Join(unreadable, "; ")
		cfg.Paused = true
	}
	return cfg
}

// Reopened is the recorded status a step starts from: recorded, but for a rollout rolled
// back whose revision the provider promotes with force (the promote and force-promote
// annotations both name it), which is stepped as if it were still progressing, so that
// Step promotes it: every Gateway gets the revision at once and the rollout completes.
// Without the force Step ignores a promote of a revision that was rolled back. Once
// promoted the rollout is Complete, so stepping it again changes nothing, as after a
// crash.
func Reopened(recorded *Status, cfg Config) *Status {
	if recorded == nil || recorded.Phase != gatewrightv1alpha1.RolloutRolledBack ||
		cfg.Promote != recorded.Revision || cfg.ForcePromote != recorded.Revision {
		return recorded
	}
	reopened := recorded.DeepCopy()
	reopened.Phase = gatewrightv1alpha1.RolloutProgressing
	return reopened
}

// maxQuotedAnnotation bounds how much of an unreadable annotation a message repeats.
const maxQuotedAnnotation = 64

// annotatedRevision is the revision annotation key names, 0 when it is absent; a value
// that is not a revision number gives 0 and a line in unreadable.
func annotatedRevision(annotations map[string]string, key string, unreadable *[]string) int64 {
	value := annotations[key]
	if value == "" {
		return 0
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 1 {
		*unreadable = append(*unreadable, fmt.Sprintf("annotation %s is %q, not a revision number", key, conditions.Truncate(value, maxQuotedAnnotation)))
		return 0
	}
	return n
}
