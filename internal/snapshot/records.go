package snapshot

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
)

// decided reads what the controller decided of the routes of snap's Gateway, where the
// caller reads it: the routes their own templates refused (their records say so), and,
// AsRecorded, which routes past a bound it left out (the Gateway's record says so).
func (g *Gatherer) decided(ctx context.Context, snap *translate.Gateway) error {
	gw := snap.Gateway
	if g.RefusedRouteIndex != "" || g.AsRecorded {
		var err error
		if snap.RefusedRoutes, err = g.refusedByTemplates(ctx, gw, routeNamespaces(snap)); err != nil {
			return err
		}
	}
	if !g.AsRecorded {
		return nil
	}
	snap.CutoffRecorded = true
	var err error
	if snap.RecordedCutoff, err = apply.RouteCutoff(ctx, g.Reader, gw); err != nil {
		return fmt.Errorf("reading the Rendering of Gateway %s/%s (which routes it leaves out for a bound): %w", gw.Namespace, gw.Name, err)
	}
	return nil
}

// routeNamespaces are the namespaces of snap's routes, of every kind.
func routeNamespaces(snap *translate.Gateway) []string {
	var out []string
	for i := range snap.Routes {
		out = append(out, snap.Routes[i].Namespace)
	}
	for _, route := range snap.OtherRoutes {
		out = append(out, route.GetNamespace())
	}
	return out
}

// refusedByTemplates are the routes on gw that their own templates refused, as their
// records say: through RefusedRouteIndex, else from the records of namespaces, those of
// the routes in question (refusedRoutes).
func (g *Gatherer) refusedByTemplates(ctx context.Context, gw *gatewayv1.Gateway, namespaces []string) (map[routes.Key]string, error) {
	if g.RefusedRouteIndex == "" {
		return g.refusedRoutes(ctx, gw, namespaces)
	}
	var list gatewrightv1alpha1.RenderingList
	if err := g.Reader.List(ctx, &list, client.MatchingFields{g.RefusedRouteIndex: gw.Namespace + "/" + gw.Name}); err != nil {
		return nil, err
	}
	return apply.RefusedRoutes(list.Items, gw), nil
}

// refusedRoutes are the routes in namespaces that their own templates refused on gw, as
// their records say: the controller leaves them out of gw's table. gw's route records
// are listed cluster-wide, else in each route namespace; one the caller may not read is an
// error that names it, since a refused route would otherwise answer requests it does not.
func (g *Gatherer) refusedRoutes(ctx context.Context, gw *gatewayv1.Gateway, namespaces []string) (map[routes.Key]string, error) {
	// Route records carry their Gateway's name and namespace as labels: only gw's are listed.
	ofGateway := client.MatchingLabels{gatewayv1.GatewayNameLabelKey: gw.Name, gatewrightv1alpha1.LabelGatewayNamespace: gw.Namespace}
	var all gatewrightv1alpha1.RenderingList
	err := g.Reader.List(ctx, &all, ofGateway)
	if err == nil {
		return apply.RefusedRoutes(all.Items, gw), nil
	}
	if !apierrors.IsForbidden(err) {
		return nil, fmt.Errorf("listing Renderings (whether routes' own templates refused them): %w", err)
	}
	var renderings []gatewrightv1alpha1.Rendering
	seen := map[string]bool{}
	for _, namespace := range namespaces {
		if seen[namespace] {
			continue
		}
		seen[namespace] = true
		var list gatewrightv1alpha1.RenderingList
		if err := g.Reader.List(ctx, &list, client.InNamespace(namespace), ofGateway); err != nil {
			return nil, fmt.Errorf("reading the Renderings of namespace %s (whether its routes' own templates refused them): %w", namespace, err)
		}
		renderings = append(renderings, list.Items...)
	}
	return apply.RefusedRoutes(renderings, gw), nil
}
