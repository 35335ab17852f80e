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
// The verdicts are in the specification's precedence (listeners.EvaluateSets).
func (g *Gatherer) ListenerSets(ctx context.Context, gw *gatewayv1.Gateway, serves listeners.Serves, own []listeners.Status, candidates []gatewayv1.ListenerSet) ([]listeners.SetVerdict, error) {
	if len(candidates) == 0 {
		return nil, nil
	}
	bySelector := gw.Spec.AllowedListeners != nil && gw.Spec.AllowedListeners.Namespaces != nil &&
		gw.Spec.AllowedListeners.Namespaces.From != nil && *gw.Spec.AllowedListeners.Namespaces.From == gatewayv1.NamespacesFromSelector
	labelsOf := map[string]map[string]string{}
	sets := make([]listeners.Set, 0, len(candidates))
	for i := range candidates {
		ls := &candidates[i]
		labels, read := labelsOf[ls.Namespace]
		if bySelector && !read {
			var err error
			if labels, err = g.NamespaceLabels(ctx, ls.Namespace); err != nil {
				return nil, g.reading(err, "the namespace of ListenerSet %s/%s", ls.Namespace, ls.Name)
			}
			labelsOf[ls.Namespace] = labels
		}
		set := listeners.SetOf(ls, labels)
		// Only the certificateRefs of a ListenerSet the Gateway allows are resolved: one it
		// refuses costs no Secret read, however many a tenant creates.
		if listeners.NotAllowed(serves, gw, &set) == "" {
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
		sets = append(sets, set)
	}
	return listeners.EvaluateSets(serves, gw, own, sets), nil
}
