package rollout

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// TenantInputs is a fingerprint of what gw's tenants control and its render reads: gw
// itself (UID and generation: a Gateway recreated, edited or moved to another class),
// the GatewayConfigs among configs that may apply to it or to routes (UID and
// generation), and routes, the HTTPRoutes that name gw (UID, generation, labels and
// annotations, which templates may read). The Gateway reconciler records it with each
// render (Rendering.TenantInputs); the rollout computes it again from the live objects.
// A Gateway whose fingerprint differs from the one it rendered the revision with was
// changed by its tenants: its failure is not the revision's. Status writes change none
// of it, so a fleet settling does not look like tenants' edits.
func TenantInputs(gw *gatewayv1.Gateway, configs []gatewrightv1alpha1.GatewayConfig, routes []gatewayv1.HTTPRoute) string {
	h := sha256.New()
	fmt.Fprintf(h, "gateway %s %d\n", gw.UID, gw.Generation)
	ownRoutes := map[string]bool{}
	var lines []string
	for i := range routes {
		route := &routes[i]
		if route.Namespace == gw.Namespace {
			ownRoutes[route.Name] = true
		}
		lines = append(lines, fmt.Sprintf("route %s/%s %s %d %s %s", route.Namespace, route.Name, route.UID, route.Generation,
			sortedPairs(route.Labels), sortedPairs(route.Annotations)))
	}
	for i := range configs {
		config := &configs[i]
		if config.Namespace == gw.Namespace && configMayApply(config, gw, ownRoutes) {
			lines = append(lines, fmt.Sprintf("config %s %s %d", config.Name, config.UID, config.Generation))
		}
	}
	slices.Sort(lines)
	for _, line := range lines {
		_, _ = io.WriteString(h, line+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// configMayApply says whether config, of gw's namespace, may bring values to gw or to
// one of its routes of that namespace (ownRoutes, by name): it targets gw, the
// namespace or such a route, or gw's infrastructure.parametersRef names it.
func configMayApply(config *gatewrightv1alpha1.GatewayConfig, gw *gatewayv1.Gateway, ownRoutes map[string]bool) bool {
	if gatewrightv1alpha1.NamesGatewayConfig(gw, config.Name) {
		return true
	}
	for _, target := range config.Spec.TargetRefs {
		switch string(target.Kind) {
		case "Namespace":
			return true
		case "Gateway":
			if string(target.Name) == gw.Name {
				return true
			}
		case "HTTPRoute":
			if ownRoutes[string(target.Name)] {
				return true
			}
		}
	}
	return false
}

// sortedPairs writes a map as sorted, quoted key=value pairs.
func sortedPairs(m map[string]string) string {
	pairs := make([]string, 0, len(m))
	for k, v := range m {
		pairs = append(pairs, fmt.Sprintf("%q=%q", k, v))
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ",")
}
