package live

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/routes"
)

// recordedGateway explains a Gateway from its Rendering, after forbidden kept the
// chain from being read.
func (r Reader) recordedGateway(ctx context.Context, namespace, name string, forbidden error) (*explain.ValuesExplanation, *explain.RecordSource, error) {
	var gw gatewayv1.Gateway
	if err := r.get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &gw); err != nil {
		return nil, nil, forbidden
	}
	rec, err := apply.New(r.Client, r.Client).LoadRecord(ctx, apply.GatewayOwner(&gw))
	if err != nil || rec.Values == nil {
		return nil, nil, noRecord(forbidden, "Gateway "+namespace+"/"+name, err)
	}
	exp := explain.ValuesOfRecord(namespace+"/"+name, "", rec.Values)
	exp.Revision = rec.Revision
	return exp, newRecordSource(namespace, rec, forbidden), nil
}

// recordedRoute explains a route of kind from the Rendering of the route on its parent
// Gateway: the one parent names, else the only one recorded.
func (r Reader) recordedRoute(ctx context.Context, kind, namespace, name, parent string, forbidden error) (*explain.ValuesExplanation, *explain.RecordSource, error) {
	route := routes.New(kind)
	if err := r.get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, route); err != nil {
		return nil, nil, forbidden
	}
	about := kind + " " + namespace + "/" + name
	records, err := apply.New(r.Client, r.Client).LoadRouteRecords(ctx, kind, route)
	if err != nil {
		return nil, nil, noRecord(forbidden, about, err)
	}
	var gateways []string
	for key, rec := range records {
		if rec.Values != nil && (parent == "" || key == explain.ParentKey(parent, namespace).String()) {
			gateways = append(gateways, key)
		}
	}
	sort.Strings(gateways)
	switch {
	case len(gateways) == 0:
		// A route has values of its own, and so a record of them, only where its Gateway's
		// blueprint renders something for routes.
		return nil, nil, fmt.Errorf("%w; and no Rendering records the values of %s: a route has values of its own only when its Gateway's blueprint has route templates of its kind (explain its Gateway otherwise)", forbidden, about)
	case len(gateways) > 1:
		return nil, nil, fmt.Errorf("%w; the Renderings of %s record its values on several Gateways (%s): choose one with --gateway", forbidden, about, strings.Join(gateways, ", "))
	}
	rec := records[gateways[0]]
	exp := explain.ValuesOfRecord(gateways[0], namespace+"/"+name, rec.Values)
	if kind != routes.KindHTTPRoute {
		exp.RouteKind = kind
	}
	exp.Revision = rec.Revision
	return exp, newRecordSource(namespace, rec, forbidden), nil
}

func noRecord(forbidden error, about string, err error) error {
	if err != nil {
		return fmt.Errorf("%w; and the values recorded for %s cannot be read either: %w", forbidden, about, err)
	}
	return fmt.Errorf("%w; and no Rendering records the values of %s yet", forbidden, about)
}

// newRecordSource says that rec, of a Gateway or route in namespace, is read because
// forbidden kept the chain from being read.
func newRecordSource(namespace string, rec *apply.Record, forbidden error) *explain.RecordSource {
	return &explain.RecordSource{Rendering: namespace + "/" + rec.ValuesRendering(), RecordedAt: rec.Values.RecordedAt, Because: forbidden.Error(), Cut: rec.Values.Cut}
}
