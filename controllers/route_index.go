package controllers

import (
	"context"
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// routeParentIndexName is the informer index of HTTPRoutes by the Gateways their
// parentRefs name, as the field index indexRouteParent has them.
const routeParentIndexName = "gatewright.dev/httproute-parents"

// routeParentIndex hands out the HTTPRoutes that name a Gateway as the informer holds
// them: the cache's own objects, not copied. A Gateway's render reads all its routes,
// and a List copies each route into a new list even without deep copies (1.7 MB for a
// Gateway of 5,000 routes, at each route's edit). What it returns is only ever read.
type routeParentIndex struct {
	indexer toolscache.Indexer
}

// newRouteParentIndex adds the index to c's HTTPRoute informer.
func newRouteParentIndex(ctx context.Context, c cache.Cache) (*routeParentIndex, error) {
	informer, err := c.GetInformer(ctx, &gatewayv1.HTTPRoute{})
	if err != nil {
		return nil, err
	}
	shared, ok := informer.(toolscache.SharedIndexInformer)
	if !ok {
		return nil, fmt.Errorf("the HTTPRoute informer is a %T, which has no index to read", informer)
	}
	err = shared.AddIndexers(toolscache.Indexers{routeParentIndexName: func(obj any) ([]string, error) {
		route, ok := obj.(*gatewayv1.HTTPRoute)
		if !ok {
			return nil, nil
		}
		return routeParents(route), nil
	}})
	if err != nil {
		return nil, fmt.Errorf("indexing HTTPRoutes by parent: %w", err)
	}
	return &routeParentIndex{indexer: shared.GetIndexer()}, nil
}

// httpRoutesOf are the HTTPRoutes that name gw in a parentRef.
func (i *routeParentIndex) httpRoutesOf(gw client.Object) ([]*gatewayv1.HTTPRoute, error) {
	objs, err := i.indexer.ByIndex(routeParentIndexName, client.ObjectKeyFromObject(gw).String())
	if err != nil {
		return nil, err
	}
	out := make([]*gatewayv1.HTTPRoute, 0, len(objs))
	for _, obj := range objs {
		if route, ok := obj.(*gatewayv1.HTTPRoute); ok {
			out = append(out, route)
		}
	}
	return out, nil
}
