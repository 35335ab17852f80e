package snapshot

import (
	"context"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/translate"
)

// Serves is what gw's listeners are judged by and its routes attached with: what the
// revision of its class's blueprint that gw runs serves (translate.Serves), resolved as
// Gateway resolves it (Assigned counts). On an error it is the zero Serves, what a
// blueprint that says nothing serves, with which a caller that reports the error may
// still judge the listeners.
func (g *Gatherer) Serves(ctx context.Context, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, opts ...Option) (listeners.Serves, error) {
	live, err := g.Blueprint(ctx, class)
	if err != nil {
		return listeners.Serves{}, g.reading(err, "GatewayClass %s", class.Name)
	}
	rev, err := g.resolve(ctx, gw, live, optionsOf(opts).assigned)
	if err != nil {
		return listeners.Serves{}, g.reading(err, "GatewayClassBlueprint %s", live.Name)
	}
	if rev != nil {
		return translate.Serves(&rev.Spec), nil
	}
	return translate.Serves(&live.Spec), nil
}

// contextServes is Serves for a Gateway that a policy's target reaches, whose class is
// read here. When the class is not Gatewright's, or what the Gateway runs cannot be read
// or used, it is the zero Serves: the values of the contexts on the Gateway carry that
// error, since they are computed from the same reads (contextValues.of).
func (g *Gatherer) contextServes(ctx context.Context, gw *gatewayv1.Gateway) listeners.Serves {
	class, err := g.class(ctx, string(gw.Spec.GatewayClassName))
	if err != nil || !translate.IsGatewrightClass(class) {
		return listeners.Serves{}
	}
	serves, _ := g.Serves(ctx, gw, class)
	return serves
}
