package main

import (
	"fmt"
	"strings"
)

// A change is the one edit a run makes once the fleet has settled (issue 29, item 3): a
// provider's or a tenant's, each of which changes one ConfigMap of the Gateways it
// reaches, the bootstrap one, and no other object.
type change string

const (
	noChange = change("")
	// changeBlueprint adds a key to the blueprint's bootstrap template: every Gateway.
	changeBlueprint = change("blueprint")
	// changeClassConfig gives the global GatewayClassConfig a default image: every
	// Gateway, at once (the config opts out of the blueprint's waves with
	// rolloutWithBlueprint: false, so the run measures the change itself, as before
	// class-wide configs rode the waves by default).
	changeClassConfig = change("classconfig")
	// changeGatewayConfig gives one namespace's GatewayConfig a default image: that
	// namespace's Gateways, and no other.
	changeGatewayConfig = change("gatewayconfig")
)

// rollout is the blueprint's spec.rollout.strategy in a run with a change.
type rollout string

const (
	rolloutAllAtOnce = rollout("allatonce")
	rolloutWaves     = rollout("waves")
)

func parseChange(s string) (change, error) {
	switch c := change(s); c {
	case noChange, changeBlueprint, changeClassConfig, changeGatewayConfig:
		return c, nil
	}
	return "", fmt.Errorf("-change %s: want blueprint, classconfig or gatewayconfig", s)
}

func parseRollout(s string) (rollout, error) {
	switch r := rollout(s); r {
	case rolloutAllAtOnce, rolloutWaves:
		return r, nil
	}
	return "", fmt.Errorf("-rollout %s: want allatonce or waves", s)
}

const (
	// changedNamespace is the namespace whose GatewayConfig changeGatewayConfig edits.
	changedNamespace = "tenant-0"
	// changedImage is the default image the classconfig and gatewayconfig changes set.
	changedImage = "envoyproxy/envoy:v1.37.0"
	// editionKey and changedEdition are what the blueprint change adds to the bootstrap
	// ConfigMap.
	editionKey     = "edition"
	changedEdition = "2"
)

// bootstrapData is the bootstrap template's data line, as workload.go spells it.
const bootstrapData = `data: {image: {{ .Values.image | quote }}, replicas: {{ .Values.replicas | quote }}}`

// floorChange is what a change does to the objects the floor applies: the bootstrap
// ConfigMap's data gains or changes Bootstrap's keys, for the Gateways of Namespace, or
// of every namespace if it is empty.
type floorChange struct {
	Namespace string            `json:"namespace,omitempty"`
	Bootstrap map[string]string `json:"bootstrap"`
}

// reaches says whether the change reaches the Gateways of namespace.
func (c floorChange) reaches(namespace string) bool {
	return c.Namespace == "" || c.Namespace == namespace
}

// floorChange is c as the floor does it.
func (c change) floorChange() floorChange {
	switch c {
	case changeBlueprint:
		return floorChange{Bootstrap: map[string]string{editionKey: changedEdition}}
	case changeClassConfig:
		return floorChange{Bootstrap: map[string]string{"image": changedImage}}
	default:
		return floorChange{Namespace: changedNamespace, Bootstrap: map[string]string{"image": changedImage}}
	}
}

// gatewrightEdit is the YAML the harness applies to make c in Gatewright's cluster.
func (c change) gatewrightEdit(r rollout) string {
	switch c {
	case changeBlueprint:
		return blueprintYAML(r, true)
	case changeClassConfig:
		return classConfigYAML(true)
	default:
		return tenant(changedNamespace, true)
	}
}

// changedGateways is how many of the bench's Gateways c reaches.
func (c change) changedGateways(s settings) int {
	if c != changeGatewayConfig {
		return s.gateways
	}
	n := 0
	for i := range s.gateways {
		if gateway(i, s.namespaces).Namespace == changedNamespace {
			n++
		}
	}
	return n
}

// blueprintYAML is the bench blueprint with its rollout strategy (none without a change:
// the blueprint the bench always measured), and with the blueprint change made if
// edited.
func blueprintYAML(r rollout, edited bool) string {
	bp := blueprint
	switch r {
	case rolloutAllAtOnce:
		bp = strings.Replace(bp, "spec:\n", "spec:\n  rollout: {strategy: AllAtOnce}\n", 1)
	case rolloutWaves:
		bp = strings.Replace(bp, "spec:\n", "spec:\n  rollout: {strategy: Waves}\n", 1)
	}
	if edited {
		bp = strings.Replace(bp, bootstrapData, strings.TrimSuffix(bootstrapData, "}")+", "+editionKey+": "+fmt.Sprintf("%q", changedEdition)+"}", 1)
	}
	return bp
}

// classConfigYAML is the global policy, with the classconfig change made if edited. It
// opts out of riding the blueprint's waves: changeClassConfig measures a change at once.
func classConfigYAML(edited bool) string {
	defaults := ""
	if edited {
		defaults = "\n  default: {image: " + changedImage + "}"
	}
	return fmt.Sprintf(`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: bench, namespace: %s}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: bench}]
  rolloutWithBlueprint: false
  override: {labels: {managed: platform}}%s
`, controllerNamespace, defaults)
}
