package values

import (
	"fmt"
	"sort"
	"strings"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

var sumUnit = map[Limit]string{
	LimitBlocks:     "blocks (defaults and overrides)",
	LimitConditions: "blocks with a condition (when)",
	LimitBytes:      "bytes of JSON in their blocks",
	LimitElements:   "elements (keys and list items) in their blocks",
}

var partyName = map[Party]string{
	GatewayProvider: "the blueprint and the provider's policies of the Gateway (levels 1 to 4)",
	GatewayOwner:    "the Gateway's own policies (levels 5 and 6)",
	RouteProvider:   "the provider's policies of the route's namespace (levels 9 and 10)",
	RouteOwner:      "the route's own policies (levels 7 and 8)",
}

// Error is the message for whoever reads the Gateway or route whose values these are.
func (e *SumLimitError) Error() string { return e.MessageFor(e.namespace) }

// MessageFor is the message as a status in namespace may show it: it names the
// largest contributors of the party charged that a reader of namespace may read, and
// counts the others, so that a route owner's status says nothing of the names in the
// Gateway owner's namespace, nor hers of his.
func (e *SumLimitError) MessageFor(namespace string) string {
	var msg strings.Builder
	fmt.Fprintf(&msg, "the policies that reach these values have more than %d %s together (%d): ", e.Max, sumUnit[e.Limit], e.Total)
	if e.Before == 0 {
		fmt.Fprintf(&msg, "%s bring %d", partyName[e.Party], e.Added)
	} else {
		fmt.Fprintf(&msg, "%s bring %d over the %d of the levels before them", partyName[e.Party], e.Added, e.Before)
	}
	var named []string
	readable := 0
	hidden := map[string]map[string]int{} // by kind, by namespace
	for ns, byKind := range e.charged {
		for kind, n := range byKind {
			if e.readable(Source{Kind: kind, Namespace: ns}, namespace) {
				readable += n
				continue
			}
			if hidden[kind] == nil {
				hidden[kind] = map[string]int{}
			}
			hidden[kind][ns] += n
		}
	}
	for _, c := range e.Largest {
		if e.readable(c.Source, namespace) {
			named = append(named, fmt.Sprintf("%s (%d)", c.Source, c.Amount))
		}
	}
	if more := readable - len(named); more > 0 {
		named = append(named, fmt.Sprintf("%d more", more))
	}
	counted := hiddenCounts(hidden)
	switch {
	case len(named) > 0:
		msg.WriteString("; largest first: " + joinAnd(append(named, counted...)))
	case len(counted) > 0:
		msg.WriteString("; from " + joinAnd(counted))
	}
	return msg.String()
}

// readable tells whether a reader of namespace may read source: an object of the same
// namespace, a cluster-scoped one (the blueprint), or a GatewayClassConfig of the
// controller namespace (the global rules every tenant plays by). The controller
// namespace is the provider's, who reads everything.
func (e *SumLimitError) readable(source Source, namespace string) bool {
	switch {
	case source.Namespace == "" || source.Namespace == namespace:
		return true
	case e.controllerNamespace == "":
		return false
	case namespace == e.controllerNamespace:
		return true
	}
	return source.Namespace == e.controllerNamespace && source.Kind == gatewrightv1alpha1.KindGatewayClassConfig
}

// hiddenCounts counts, by kind, the objects a reader may not read: "3 GatewayConfigs
// of another namespace".
func hiddenCounts(hidden map[string]map[string]int) []string {
	kinds := make([]string, 0, len(hidden))
	for kind := range hidden {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	out := make([]string, 0, len(kinds))
	for _, kind := range kinds {
		n, where := 0, "of another namespace"
		for _, count := range hidden[kind] {
			n += count
		}
		if len(hidden[kind]) > 1 {
			where = "of other namespaces"
		}
		noun := kind
		if n > 1 {
			noun += "s"
		}
		out = append(out, fmt.Sprintf("%d %s %s", n, noun, where))
	}
	return out
}

// joinAnd joins parts as "a, b, and c".
func joinAnd(parts []string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + ", and " + parts[len(parts)-1]
}
