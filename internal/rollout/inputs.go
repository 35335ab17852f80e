package rollout

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
func TenantInputs(gw *gatewayv1.Gateway, configs []gatewrightv1alpha1.GatewayConfig, httpRoutes []gatewayv1.HTTPRoute, others []routes.Route) string {
	h := sha256.New()
	fmt.Fprintf(h, "gateway %s %d\n", gw.UID, gw.Generation)
	ownRoutes := map[routes.Key]bool{}
	// Thousands of routes: their lines are written into one buffer and sorted as spans of
	// it, rather than formatted and allocated one by one.
	lines := inputLines{buf: make([]byte, 0, 96*(len(httpRoutes)+len(others))), spans: make([]inputSpan, 0, len(httpRoutes)+len(others)+len(configs))}
	see := func(route routes.Route) {
		key := routes.KeyOf(route)
		if key.Namespace == gw.Namespace {
			ownRoutes[key] = true
		}
		lines.begin()
		lines.buf = append(lines.buf, "route "...)
		// An HTTPRoute's line names no kind: records of before other kinds keep matching.
		if key.Kind != routes.KindHTTPRoute {
			lines.buf = append(append(lines.buf, key.Kind...), ' ')
		}
		lines.buf = append(append(append(lines.buf, key.Namespace...), '/'), key.Name...)
		lines.buf = append(append(append(lines.buf, ' '), route.GetUID()...), ' ')
		lines.buf = strconv.AppendInt(lines.buf, route.GetGeneration(), 10)
		lines.buf = appendSortedPairs(append(lines.buf, ' '), route.GetLabels())
		lines.buf = appendSortedPairs(append(lines.buf, ' '), route.GetAnnotations())
		lines.end()
	}
	for i := range httpRoutes {
		see(&httpRoutes[i])
	}
	for _, route := range others {
		see(route)
	}
	for i := range configs {
		config := &configs[i]
		if config.Namespace == gw.Namespace && configMayApply(config, gw, ownRoutes) {
			lines.begin()
			lines.buf = fmt.Appendf(lines.buf, "config %s %s %d", config.Name, config.UID, config.Generation)
			lines.end()
		}
	}
	lines.sort()
	newline := []byte{'\n'}
	for _, line := range lines.spans {
		_, _ = h.Write(lines.buf[line.start:line.end])
		_, _ = h.Write(newline)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// inputLines are lines written one after another into buf, each a span of it.
type inputLines struct {
	buf   []byte
	spans []inputSpan
}

type inputSpan struct{ start, end int }

func (l *inputLines) begin() { l.spans = append(l.spans, inputSpan{start: len(l.buf)}) }
func (l *inputLines) end()   { l.spans[len(l.spans)-1].end = len(l.buf) }

// sort sorts the lines as strings.
func (l *inputLines) sort() {
	slices.SortFunc(l.spans, func(a, b inputSpan) int {
		return bytes.Compare(l.buf[a.start:a.end], l.buf[b.start:b.end])
	})
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
