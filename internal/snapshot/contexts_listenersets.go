package snapshot

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
)

// attachedListenerSets are the ListenerSets attached to gw, of a class that serves what
// serves says, with their verdicts, judged as the Gateway's reconciler judges them: a
// route reaches gw through them as through gw's own listeners.
func (g *Gatherer) attachedListenerSets(ctx context.Context, gw *gatewayv1.Gateway, serves listeners.Serves) ([]listenerSet, error) {
	if !g.ServesListenerSets || !serves.ListenerSets() {
		return nil, nil
	}
	own, err := g.Listeners(ctx, gw, serves)
	if err != nil {
		return nil, err
	}
	sets, _, err := g.readListenerSets(ctx, gw, serves, own)
	return attachedOnly(sets), err
}

// listenerSetParent is the Gateway that ref, a parentRef of route naming the ListenerSet
// key, reaches: the ListenerSet's Gateway, when the ListenerSet is attached to it and
// takes route on at least one listener; nil otherwise, and where Reader serves no
// ListenerSets.
func (p *parentReads) listenerSetParent(ctx context.Context, route routes.Route, ref gatewayv1.ParentReference, key types.NamespacedName, labels map[string]string) (*gatewayv1.Gateway, error) {
	if !p.g.ServesListenerSets {
		return nil, nil
	}
	ls := &gatewayv1.ListenerSet{}
	if err := p.g.Reader.Get(ctx, key, ls); err != nil {
		if meta.IsNoMatchError(err) {
			return nil, nil // a cluster that serves no ListenerSets holds none
		}
		return nil, client.IgnoreNotFound(err)
	}
	gwKey, isGateway := attach.ListenerSetParent(ls)
	if !isGateway {
		return nil, nil
	}
	gw, err := p.gateway(ctx, gwKey)
	if err != nil || gw == nil {
		return nil, err
	}
	serves := p.servesOf(ctx, gw)
	sets, read := p.sets[gwKey]
	if !read {
		if sets, err = p.g.attachedListenerSets(ctx, gw, serves); err != nil {
			return nil, err
		}
		p.sets[gwKey] = sets
	}
	for _, set := range sets {
		if client.ObjectKeyFromObject(set.item) == key && len(attach.AttachToListenerSet(set.item, set.verdict, serves, attach.RouteOf(route), ref, labels).Listeners) > 0 {
			return gw, nil
		}
	}
	return nil, nil
}
