package snapshot

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
)

// Route gathers what the values of route, of any kind, on gw, of class, are computed from: the
// blueprint at the revision gw runs and the policies of the controller's, the Gateway's
// and the route's namespaces. The route's templates read gw's listeners too, which the
// route reconciler judges (Listeners) only once it knows the revision renders routes.
func (g *Gatherer) Route(ctx context.Context, route routes.Route, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, opts ...Option) (*translate.Gateway, error) {
	snap, err := g.values(ctx, gw, class, route)
	if err != nil {
		return nil, err
	}
	if err := g.atRevision(ctx, snap, optionsOf(opts)); err != nil {
		return nil, err
	}
	return snap, nil
}

// ParentGateways are the Gateways a route's parentRefs name that exist, each once, in
// the order the route names them.
func (g *Gatherer) ParentGateways(ctx context.Context, route routes.Route) ([]*gatewayv1.Gateway, error) {
	seen := map[client.ObjectKey]bool{}
	var out []*gatewayv1.Gateway
	for _, ref := range routes.ParentRefs(route) {
		key, isGateway := attach.ParentGateway(route, ref)
		if !isGateway || seen[key] {
			continue
		}
		seen[key] = true
		gw := &gatewayv1.Gateway{}
		if err := g.Reader.Get(ctx, key, gw); err != nil {
			if client.IgnoreNotFound(err) != nil {
				return nil, err
			}
			continue
		}
		out = append(out, gw)
	}
	return out, nil
}

// NamespaceLabels are the labels of a namespace, which listeners select routes by; a
// namespace that is not there has none.
func (g *Gatherer) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
	var ns corev1.Namespace
	if err := g.Reader.Get(ctx, client.ObjectKey{Name: name}, &ns); client.IgnoreNotFound(err) != nil {
		return nil, err
	}
	return ns.Labels, nil
}
