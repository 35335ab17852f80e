package apply

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/values"
)

// Rendered sets what part 0 of the record says its objects come from: the values of
// res with their provenance, the blueprint revision (0 for a blueprint without
// revisions) and the hash of the effective values. They are written with the objects,
// in the write the record needs anyway.
func (r *Record) Rendered(res *values.Result, class string, bp *gatewrightv1alpha1.GatewayClassBlueprint, revision int64) error {
	hash, err := revisions.ValuesHash(res.Values)
	if err != nil {
		return err
	}
	r.Values, r.Revision, r.ValuesHash = RecordValues(res, class, bp), revision, hash
	return nil
}

// TargetRevision is the revision blueprint's rollout assigned gw, as part 0 of its
// record says; 0 when none did (or gw has no record yet, or another blueprint's rollout
// assigned the one it has).
func TargetRevision(ctx context.Context, r client.Reader, gw client.Object, blueprint string) (int64, error) {
	part, err := GatewayHead(ctx, r, gw)
	if part == nil {
		return 0, err
	}
	return part.TargetFor(blueprint), nil
}

// RouteCutoff is where gw's routes went past a Gateway-wide bound in its last render, as
// part 0 of its record says; nil when every route fit (or gw has no record yet).
func RouteCutoff(ctx context.Context, r client.Reader, gw client.Object) (*gatewrightv1alpha1.RouteCutoff, error) {
	part, err := GatewayHead(ctx, r, gw)
	if part == nil {
		return nil, err
	}
	return part.RouteCutoff, nil
}

// GatewayHead is part 0 of gw's record; nil when there is none, or the one there does
// not name gw.
func GatewayHead(ctx context.Context, r client.Reader, gw client.Object) (*gatewrightv1alpha1.Rendering, error) {
	owner := GatewayOwner(gw)
	part := &gatewrightv1alpha1.Rendering{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: gw.GetNamespace(), Name: owner.renderingName(0)}, part); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if !owner.namedBy(part) {
		return nil, nil
	}
	return part, nil
}

// GatewayOf is the Gateway whose part 0 r is, by namespace/name; ok is false for any
// other Rendering, or one that does not carry the name its owner gives it.
func GatewayOf(r *gatewrightv1alpha1.Rendering) (key client.ObjectKey, ok bool) {
	if r.Owner.Kind != KindGateway || r.Part != 0 {
		return key, false
	}
	gw := &gatewayv1.Gateway{}
	gw.Namespace, gw.Name, gw.UID = r.Namespace, r.Owner.Name, r.Owner.UID
	if !GatewayOwner(gw).namedBy(r) {
		return key, false
	}
	return client.ObjectKeyFromObject(gw), true
}

// AssignRevision writes the assignment of blueprint's rollout into part 0 of a Gateway's
// record, r: the revision the Gateway is to run, of which blueprint, and whether its
// health gates the wave. The record's other fields are the Gateway reconciler's, which
// writes them with r's resourceVersion: it cannot write back a targetRevision it read
// before this.
func AssignRevision(ctx context.Context, c client.Client, r *gatewrightv1alpha1.Rendering, blueprint string, revision int64, gates bool) error {
	patch := map[string]any{"targetRevision": revision, "targetBlueprint": blueprint, "gatesRollout": gates}
	if !gates {
		patch["gatesRollout"] = nil
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	target := &gatewrightv1alpha1.Rendering{}
	target.Namespace, target.Name = r.Namespace, r.Name // r may be the cache's own
	if err := c.Patch(ctx, target, client.RawPatch(types.MergePatchType, data)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("assigning revision %d to Gateway %s/%s (Rendering %s): %w", revision, r.Namespace, r.Owner.Name, r.Name, err)
	}
	return nil
}

// RefusedRoutes are the routes on gw that their own templates refused, with why, as
// the first parts of their records among renderings say. A Rendering counts only if it
// is a route's part 0 named as its owner names it, for gw.
func RefusedRoutes(renderings []gatewrightv1alpha1.Rendering, gw client.Object) map[routes.Key]string {
	out := map[routes.Key]string{}
	for i := range renderings {
		r := &renderings[i]
		owner := OwnerOfRendering(r)
		if r.Part != 0 || r.RouteRefused == "" || !owner.isRoute() || !owner.namedBy(r) ||
			r.Owner.GatewayNamespace != gw.GetNamespace() || r.Owner.GatewayName != gw.GetName() {
			continue
		}
		out[routes.Key{Kind: r.Owner.Kind, Namespace: r.Namespace, Name: r.Owner.Name}] = r.RouteRefused
	}
	return out
}
