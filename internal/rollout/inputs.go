package rollout

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/routes"
)

// TenantInputs is a fingerprint of what gw's tenants control and its render reads: gw
// itself (UID and generation: a Gateway recreated, edited or moved to another class),
// the GatewayConfigs among configs that may apply to it or to routes (UID and
// generation), and the routes that name gw, httpRoutes and those of the other kinds
// (UID, generation, labels and annotations, which templates may read). The Gateway reconciler records it with each
// render (Rendering.TenantInputs); the rollout computes it again from the live objects.
// A Gateway whose fingerprint differs from the one it rendered the revision with was
// changed by its tenants: its failure is not the revision's. Status writes change none
// of it, so a fleet settling does not look like tenants' edits.
func TenantInputs(gw *gatewayv1.Gateway, configs []gatewrightv1alpha1.GatewayConfig, httpRoutes []*gatewayv1.HTTPRoute, others []routes.Route) string {
	h := sha256.New()
	fmt.Fprintf(h, "gateway %s %d\n", gw.UID, gw.Generation)
	// The lines are hashed in sorted order: the configs' ("config ...") before the
	// routes' ("route ..."), and the routes' by their heads, "route [kind ]namespace/name".
	// A head is unique and followed by a space, below any character of a name, so the
	// heads sort as the whole lines do; and each line is hashed as it is written, never
	// holding thousands of routes' labels and annotations at once.
	all := make([]routes.Route, 0, len(httpRoutes)+len(others))
	for _, route := range httpRoutes {
		all = append(all, route)
	}
	all = append(all, others...)
	heads := make([]string, len(all))
	order := make([]int, len(all))
	ownRoutes := map[routes.Key]bool{}
	for i, route := range all {
		key := routes.KeyOf(route)
		if key.Namespace == gw.Namespace {
			ownRoutes[key] = true
		}
		// An HTTPRoute's line names no kind: records of before other kinds keep matching.
		kind := ""
		if key.Kind != routes.KindHTTPRoute {
			kind = key.Kind + " "
		}
		heads[i], order[i] = "route "+kind+key.Namespace+"/"+key.Name, i
	}
	var configLines []string
	for i := range configs {
		config := &configs[i]
		if config.Namespace == gw.Namespace && configMayApply(config, gw, ownRoutes) {
			configLines = append(configLines, fmt.Sprintf("config %s %s %d\n", config.Name, config.UID, config.Generation))
		}
	}
	slices.Sort(configLines)
	for _, line := range configLines {
		_, _ = io.WriteString(h, line)
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(heads[a], heads[b]) })
	var line []byte
	for _, i := range order {
		route := all[i]
		line = append(append(line[:0], heads[i]...), ' ')
		line = append(append(line, route.GetUID()...), ' ')
		line = strconv.AppendInt(line, route.GetGeneration(), 10)
		line = appendSortedPairs(append(line, ' '), route.GetLabels())
		line = appendSortedPairs(append(line, ' '), route.GetAnnotations())
		_, _ = h.Write(append(line, '\n'))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// configMayApply says whether config, of gw's namespace, may bring values to gw or to
// one of its routes of that namespace (ownRoutes): it targets gw, the namespace or such
// a route, or gw's infrastructure.parametersRef names it.
func configMayApply(config *gatewrightv1alpha1.GatewayConfig, gw *gatewayv1.Gateway, ownRoutes map[routes.Key]bool) bool {
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
		default:
			if ownRoutes[routes.Key{Kind: string(target.Kind), Namespace: gw.Namespace, Name: string(target.Name)}] {
				return true
			}
		}
	}
	return false
}

// appendSortedPairs appends a map as sorted, quoted key=value pairs, joined by commas.
func appendSortedPairs(buf []byte, m map[string]string) []byte {
	if len(m) == 0 {
		return buf
	}
	pairs := make([]string, 0, len(m))
	for k, v := range m {
		pairs = append(pairs, strconv.Quote(k)+"="+strconv.Quote(v))
	}
	slices.Sort(pairs)
	return append(buf, strings.Join(pairs, ",")...)
}
