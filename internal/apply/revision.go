package apply

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
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

// TargetRevision is the revision a rollout assigned gw, as part 0 of its record says;
// 0 when none did (or gw has no record yet).
func TargetRevision(ctx context.Context, r client.Reader, gw client.Object) (int64, error) {
	owner := GatewayOwner(gw)
	part := &gatewrightv1alpha1.Rendering{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: gw.GetNamespace(), Name: owner.renderingName(0)}, part); err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	if !owner.namedBy(part) {
		return 0, nil
	}
	return part.TargetRevision, nil
}
