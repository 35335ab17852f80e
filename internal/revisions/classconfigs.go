package revisions

import (
	"fmt"
	"slices"
	"strings"
	"time"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Rides tells whether gcc's changes ride the rollouts of its classes' blueprints: it sets
// rolloutWithBlueprint, lives in the controller namespace (class-wide) and targets only
// GatewayClasses. Elsewhere the flag is not honoured and a change applies at once.
func Rides(gcc *gatewrightv1alpha1.GatewayClassConfig, controllerNamespace string) bool {
	if !gcc.Spec.RolloutWithBlueprint || gcc.Namespace != controllerNamespace {
		return false
	}
	return !slices.ContainsFunc(gcc.Spec.TargetRefs, func(ref gatewayv1.LocalPolicyTargetReference) bool {
		return ref.Group != gatewayv1.GroupName || ref.Kind != "GatewayClass"
	})
}

// ClassConfigs are the configs among gccs that ride the rollout of a blueprint that
// classes use, as a revision holds them, by name. More than a revision may hold is an
// error: the blueprint then makes no revision, and its Gateways keep theirs.
func ClassConfigs(gccs []gatewrightv1alpha1.GatewayClassConfig, controllerNamespace string, classes []string) ([]gatewrightv1alpha1.RevisionClassConfig, error) {
	var out []gatewrightv1alpha1.RevisionClassConfig
	for i := range gccs {
		gcc := &gccs[i]
		if !Rides(gcc, controllerNamespace) || !targetsAny(gcc, classes) {
			continue
		}
		out = append(out, gatewrightv1alpha1.RevisionClassConfig{Name: gcc.Name, Spec: *gcc.Spec.DeepCopy()})
	}
	if len(out) > gatewrightv1alpha1.MaxRevisionClassConfigs {
		return nil, fmt.Errorf("%d GatewayClassConfigs of %s with rolloutWithBlueprint target the classes %s; a revision holds at most %d",
			len(out), controllerNamespace, strings.Join(classes, ", "), gatewrightv1alpha1.MaxRevisionClassConfigs)
	}
	slices.SortFunc(out, func(a, b gatewrightv1alpha1.RevisionClassConfig) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func targetsAny(gcc *gatewrightv1alpha1.GatewayClassConfig, classes []string) bool {
	return slices.ContainsFunc(gcc.Spec.TargetRefs, func(ref gatewayv1.LocalPolicyTargetReference) bool {
		return slices.Contains(classes, string(ref.Name))
	})
}

// WithHeld are the GatewayClassConfigs a Gateway on a revision made at made renders
// with: the live configs that do not ride the rollout, and, for those that do, the copies
// the revision holds, so that a config's change or deletion reaches the Gateway with the
// revision that carries it. A riding config the revision does not hold waits for a
// revision that does if it was made after the revision; made before, it did not ride
// then (its flag was turned on since) and applies as it is, as before the flag. A config
// that no longer rides (its flag was turned off) applies as it is now, at once.
func WithHeld(live []gatewrightv1alpha1.GatewayClassConfig, controllerNamespace string, held []gatewrightv1alpha1.RevisionClassConfig, made time.Time) []gatewrightv1alpha1.GatewayClassConfig {
	out := make([]gatewrightv1alpha1.GatewayClassConfig, 0, len(live)+len(held))
	isHeld := map[string]bool{}
	for _, h := range held {
		isHeld[h.Name] = true
	}
	applyNow := map[string]bool{}
	for i := range live {
		gcc := &live[i]
		if !Rides(gcc, controllerNamespace) || (!isHeld[gcc.Name] && gcc.CreationTimestamp.Time.Before(made)) {
			out = append(out, *gcc)
			applyNow[gcc.Name] = gcc.Namespace == controllerNamespace
		}
	}
	for _, h := range held {
		if applyNow[h.Name] {
			continue
		}
		gcc := gatewrightv1alpha1.GatewayClassConfig{Spec: *h.Spec.DeepCopy()}
		gcc.Name, gcc.Namespace = h.Name, controllerNamespace
		out = append(out, gcc)
	}
	return out
}
