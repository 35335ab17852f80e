package snapshot

import (
	"context"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
)

// ListenerSets judges candidates, ListenerSets whose parentRef names gw, on a class that
// serves what serves says, own being the verdicts of gw's own listeners (Listeners): the
// labels of their namespaces are read when gw selects ListenerSets by them, and their
// certificateRefs are resolved from their namespaces, with the ReferenceGrants there.
// The verdicts are in the specification's precedence (listeners.EvaluateSets); those past
// listeners.MaxGatewayListenerSets cost no read.
func (g *Gatherer) ListenerSets(ctx context.Context, gw *gatewayv1.Gateway, serves listeners.Serves, own []listeners.Status, candidates []gatewayv1.ListenerSet) ([]listeners.SetVerdict, error) {
	if len(candidates) == 0 {
		return nil, nil
	}
	bySelector := gw.Spec.AllowedListeners != nil && gw.Spec.AllowedListeners.Namespaces != nil &&
		gw.Spec.AllowedListeners.Namespaces.From != nil && *gw.Spec.AllowedListeners.Namespaces.From == gatewayv1.NamespacesFromSelector
	byRef := make(map[listeners.SetRef]*gatewayv1.ListenerSet, len(candidates))
	sets := make([]listeners.Set, len(candidates))
	for i := range candidates {
		sets[i] = listeners.SetOf(&candidates[i], nil)
		byRef[sets[i].Ref] = &candidates[i]
	}
	// Those past the bound are refused unread.
	sets = listeners.InPrecedence(sets)
	labelsOf := map[string]map[string]string{}
	for i := range sets[:min(len(sets), listeners.MaxGatewayListenerSets)] {
		set, ls := &sets[i], byRef[sets[i].Ref]
		labels, read := labelsOf[ls.Namespace]
		if bySelector && !read {
			var err error
			if labels, err = g.NamespaceLabels(ctx, ls.Namespace); err != nil {
				return nil, g.reading(err, "the namespace of ListenerSet %s/%s", ls.Namespace, ls.Name)
			}
			labelsOf[ls.Namespace] = labels
		}
		set.NamespaceLabels = labels
		// Only the certificateRefs of a ListenerSet the Gateway allows are resolved: one it
		// refuses costs no Secret read, however many a tenant creates.
		if listeners.NotAllowed(serves, gw, set) != "" {
			continue
		}
		var namespaces []string
		for _, l := range set.Listeners {
			if l.TLS == nil {
				continue
			}
			for _, ref := range l.TLS.CertificateRefs {
				if ref.Namespace != nil {
					namespaces = append(namespaces, string(*ref.Namespace))
				}
			}
		}
		grants, err := grantsIn(ctx, g.Reader, ls.Namespace, namespaces)
		if err != nil {
			return nil, g.reading(err, "the ReferenceGrants of ListenerSet %s/%s", ls.Namespace, ls.Name)
		}
		if set.CertificateRefs, err = attach.ResolveListenerSetCertificateRefs(ls, serves, grants, g.secretCheck(ctx, gw)); err != nil {
			return nil, err
		}
	}
	return listeners.EvaluateSets(serves, gw, own, sets), nil
}
