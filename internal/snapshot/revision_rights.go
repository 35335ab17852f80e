package snapshot

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
)

// This file reads what a Gateway runs with a caller's rights (Gatherer.Rights): what the
// caller may not read has a stand-in, told to Rights.Refused, or is an error that names it.

// target is the revision a rollout assigned gw, of blueprint, as its record says; with a
// caller's rights, as the records of gw's namespace, listed once, say.
func (g *Gatherer) target(ctx context.Context, gw *gatewayv1.Gateway, blueprint string) (int64, error) {
	if g.Rights == nil {
		return g.revisions.target(ctx, g.Reader, gw, blueprint)
	}
	target, err := g.revisions.listedTarget(ctx, g.Reader, gw, blueprint)
	if !apierrors.IsForbidden(err) {
		return target, err
	}
	what := "the Renderings of namespace " + gw.Namespace
	if g.Rights.Refused == nil {
		return 0, fmt.Errorf("listing %s (which revision a rollout assigned its Gateways): %w", what, err)
	}
	g.Rights.Refused(what, "its Gateways are taken to run their blueprint's currentRevision, not one a rollout assigned them")
	return 0, nil
}

// revisionRefused is the error of a revision of live the caller may not read, that a
// Gateway assigned target runs; nil when Rights.Refused stands the live spec in for it.
func (g *Gatherer) revisionRefused(live *gatewrightv1alpha1.GatewayClassBlueprint, target int64, err error) error {
	n := RunningNumber(live, target)
	name := revisions.Name(live.Name, n)
	if g.Rights.Refused == nil {
		return fmt.Errorf("reading GatewayClassBlueprintRevision %s (the revision the Gateway runs): %w", name, err)
	}
	g.Rights.Refused("GatewayClassBlueprintRevision "+name, fmt.Sprintf("computed with the live spec of GatewayClassBlueprint %s instead of revision %d", live.Name, n))
	return nil
}
