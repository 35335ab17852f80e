package controllers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/rollout"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// gather reads what gw's values and templates are computed from: the blueprint at the
// revision gw runs (the one its record says the blueprint's rollout assigned it, if any;
// one another blueprint's assigned counts for nothing), the policies that may apply
// and the routes attached (from the index of their parents), their backendRefs resolved,
// and those their own templates refused (from their records). It sets the fingerprint
// of what of these gw's tenants control on rec (rollout.TenantInputs), which the record
// keeps with the render, so a rollout can tell a Gateway its tenant changed from one
// the revision broke.
func (r *GatewayReconciler) gather(ctx context.Context, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, judged []listeners.Status, rec *apply.Record) (*translate.Gateway, error) {
	candidates, err := routesOf(ctx, r.Client, gw)
	if err != nil {
		return nil, err
	}
	snap, err := snapshot.ForGatewayAmong(ctx, r.Client, r.ControllerNamespace, gw, class, candidates, judged, serviceExists(ctx, r.services))
	if err != nil {
		return nil, err
	}
	snap.RouteLimits = r.routeLimits
	var refused gatewrightv1alpha1.RenderingList
	if err := r.List(ctx, &refused, client.MatchingFields{indexRenderingRefusedRoute: gw.Namespace + "/" + gw.Name}); err != nil {
		return nil, err
	}
	snap.RefusedRoutes = apply.RefusedRoutes(refused.Items, gw)
	rec.TenantInputs = rollout.TenantInputs(gw, snap.Values.GatewayConfigs, candidates)
	return snap, snapshot.AtRevision(ctx, r.Client, snap, rec.TargetFor(snap.Values.Blueprint.Name))
}
