package revisions

import (
	"fmt"
	"slices"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Rides tells whether gcc's changes ride the rollouts of its classes' blueprints: it
// lives in the controller namespace (class-wide), targets only GatewayClasses, and does
// not opt out (rolloutWithBlueprint: false; unset rides). Elsewhere a change applies at
// once.
func Rides(gcc *gatewrightv1alpha1.GatewayClassConfig, controllerNamespace string) bool {
	if optedOut := gcc.Spec.RolloutWithBlueprint != nil && !*gcc.Spec.RolloutWithBlueprint; optedOut || gcc.Namespace != controllerNamespace {
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
		return nil, fmt.Errorf("%d GatewayClassConfigs of %s that ride the rollout (rolloutWithBlueprint not false) target the classes %s; a revision holds at most %d",
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

// WithHeld are the GatewayClassConfigs a Gateway on rev renders with: the live configs
// that do not ride the rollout, and, for those that do, the copies rev holds, so that a
// config's change or deletion reaches the Gateway with the revision that carries it. A
// riding config rev does not hold waits for a revision that does when it rode as rev was
// made (waits); else it applies as it is, as it did. A config that no longer rides (it
// opted out) applies as it is now, at once.
func WithHeld(live []gatewrightv1alpha1.GatewayClassConfig, controllerNamespace string, rev *gatewrightv1alpha1.GatewayClassBlueprintRevision) []gatewrightv1alpha1.GatewayClassConfig {
	out := make([]gatewrightv1alpha1.GatewayClassConfig, 0, len(live)+len(rev.ClassConfigs))
	isHeld := map[string]bool{}
	for _, h := range rev.ClassConfigs {
		isHeld[h.Name] = true
	}
	applyNow := map[string]bool{}
	for i := range live {
		gcc := &live[i]
		if !Rides(gcc, controllerNamespace) || (!isHeld[gcc.Name] && !waits(gcc, rev)) {
			out = append(out, *gcc)
			applyNow[gcc.Name] = gcc.Namespace == controllerNamespace
		}
	}
	for _, h := range rev.ClassConfigs {
		if applyNow[h.Name] {
			continue
		}
		gcc := gatewrightv1alpha1.GatewayClassConfig{Spec: *h.Spec.DeepCopy()}
		gcc.Name, gcc.Namespace = h.Name, controllerNamespace
		out = append(out, gcc)
	}
	return out
}

// waits tells whether gcc, which rides now and rev does not hold, rode when rev was made,
// so that its creation reaches rev's Gateways with a newer revision, in the waves: it was
// made since rev (or in the same second), and it rode then by the rules of the controller
// that made rev (by default, or, before riding was the default, when it said true). A
// config that did not ride then was in effect as it is, and stays so: one made before
// rev, or one that opted in since (by dropping false, or by the controller's upgrade to
// riding by default).
func waits(gcc *gatewrightv1alpha1.GatewayClassConfig, rev *gatewrightv1alpha1.GatewayClassBlueprintRevision) bool {
	if gcc.CreationTimestamp.Time.Before(rev.CreationTimestamp.Time) {
		return false
	}
	return rev.ClassConfigsRideByDefault || (gcc.Spec.RolloutWithBlueprint != nil && *gcc.Spec.RolloutWithBlueprint)
}

// RendersAs tells whether a new revision of spec holding riding renders, for every
// Gateway, just what rev renders: its spec is rev's (spec.rollout aside), and each
// class-wide config of live renders the same on both. A riding config does when rev holds
// the same copy, or when rev does not hold it and it applies as it is on rev (WithHeld:
// it does not wait), which is how a config that rides only since (opted in, or the
// controller started riding configs by default) is taken into a revision without a
// change. A config rev holds that rides no more does when it opted out (it applies live
// on both); deleted, or aimed at other classes, it does not. What rolloutWithBlueprint
// says is not compared: it changes how a change travels, not what is rendered.
func RendersAs(rev *gatewrightv1alpha1.GatewayClassBlueprintRevision, spec *gatewrightv1alpha1.GatewayClassBlueprintSpec, riding []gatewrightv1alpha1.RevisionClassConfig, live []gatewrightv1alpha1.GatewayClassConfig, controllerNamespace string) (bool, error) {
	was, err := SpecHash(&rev.Spec)
	if err != nil {
		return false, err
	}
	is, err := SpecHash(spec)
	if err != nil || was != is {
		return false, err
	}
	held := map[string]*gatewrightv1alpha1.GatewayClassConfigSpec{}
	for i := range rev.ClassConfigs {
		held[rev.ClassConfigs[i].Name] = &rev.ClassConfigs[i].Spec
	}
	byName := map[string]*gatewrightv1alpha1.GatewayClassConfig{}
	for i := range live {
		if live[i].Namespace == controllerNamespace {
			byName[live[i].Name] = &live[i]
		}
	}
	taken := map[string]bool{}
	for i := range riding {
		c := &riding[i]
		taken[c.Name] = true
		if copied, ok := held[c.Name]; ok {
			if same, err := sameValues(copied, &c.Spec); err != nil || !same {
				return false, err
			}
			continue
		}
		if gcc := byName[c.Name]; gcc == nil || waits(gcc, rev) {
			return false, nil // its Gateways do not render it yet
		}
	}
	for name := range held {
		if gcc := byName[name]; !taken[name] && (gcc == nil || Rides(gcc, controllerNamespace)) {
			return false, nil
		}
	}
	return true, nil
}

// sameValues tells whether two specs of a config say the same but for
// rolloutWithBlueprint, by their canonical JSON: the same values spelled in another key
// order are the same.
func sameValues(a, b *gatewrightv1alpha1.GatewayClassConfigSpec) (bool, error) {
	var hashes [2]string
	for i, spec := range []*gatewrightv1alpha1.GatewayClassConfigSpec{a, b} {
		spec = spec.DeepCopy()
		spec.RolloutWithBlueprint = nil
		doc, err := canonical(spec)
		if err != nil {
			return false, fmt.Errorf("hashing GatewayClassConfig values: %w", err)
		}
		if hashes[i], err = hashOf(doc); err != nil {
			return false, err
		}
	}
	return hashes[0] == hashes[1], nil
}
