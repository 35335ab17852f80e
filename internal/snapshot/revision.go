package snapshot

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// AtRevision makes snap render the blueprint revision its Gateway runs (Running): the
// pipeline gets it AsRevision, named as the live blueprint, so that errors, metrics and
// records name it as before, with the GatewayClassConfigs that ride the rollout as the
// revision holds them (revisions.WithHeld).
func AtRevision(ctx context.Context, r client.Reader, snap *translate.Gateway, target int64) error {
	rev, err := RunningRevision(ctx, r, snap.Values.Blueprint, target)
	if err != nil {
		return err
	}
	snap.Revision = UseRevision(&snap.Values, rev)
	return nil
}

// UseRevision makes in, read with the live blueprint, the inputs of a Gateway on rev:
// the blueprint AsRevision, and the GatewayClassConfigs that ride the rollout as rev
// holds them (revisions.WithHeld). It returns rev's number; nil, revision 0, changes
// nothing.
func UseRevision(in *values.Inputs, rev *gatewrightv1alpha1.GatewayClassBlueprintRevision) int64 {
	if rev == nil {
		return 0
	}
	in.Blueprint = AsRevision(in.Blueprint, rev)
	in.GatewayClassConfigs = revisions.WithHeld(in.GatewayClassConfigs, in.ControllerNamespace, rev)
	return rev.Revision
}

// Running is live, a blueprint, as a Gateway renders it, and the revision that is
// (RunningNumber). A blueprint with no revision yet (one made before revisions, or not
// yet reconciled) is its live spec, revision 0, as it was before revisions.
func Running(ctx context.Context, r client.Reader, live *gatewrightv1alpha1.GatewayClassBlueprint, target int64) (*gatewrightv1alpha1.GatewayClassBlueprint, int64, error) {
	rev, err := RunningRevision(ctx, r, live, target)
	switch {
	case err != nil:
		return nil, 0, err
	case rev == nil:
		return live, 0, nil
	}
	return AsRevision(live, rev), rev.Revision, nil
}

// RunningNumber is the revision of live a Gateway runs: target, the revision a rollout
// assigned it (its Rendering's targetRevision), when that is newer than the blueprint's
// currentRevision, else currentRevision. A rollout's last wave moves currentRevision to
// the new revision for every Gateway at once, so the targets earlier rollouts left,
// never newer than currentRevision, need no write to be forgotten.
func RunningNumber(live *gatewrightv1alpha1.GatewayClassBlueprint, target int64) int64 {
	return max(live.Status.CurrentRevision, target)
}

// RunningRevision reads the revision Running names; nil for revision 0.
func RunningRevision(ctx context.Context, r client.Reader, live *gatewrightv1alpha1.GatewayClassBlueprint, target int64) (*gatewrightv1alpha1.GatewayClassBlueprintRevision, error) {
	n := RunningNumber(live, target)
	if n == 0 {
		return nil, nil
	}
	rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
	if err := r.Get(ctx, client.ObjectKey{Name: revisions.Name(live.Name, n)}, rev); err != nil {
		if apierrors.IsNotFound(err) {
			// Written just before the status that names it: the cache is behind, retry.
			return nil, fmt.Errorf("GatewayClassBlueprintRevision %s (revision %d of %s) not read yet: %w", revisions.Name(live.Name, n), n, live.Name, err)
		}
		return nil, err
	}
	if rev.Blueprint != live.Name || rev.Revision != n {
		return nil, &translate.InvalidParametersError{Message: fmt.Sprintf("GatewayClassBlueprintRevision %s is not revision %d of %s", rev.Name, n, live.Name)}
	}
	if !metav1.IsControlledBy(rev, live) {
		// Left by a blueprint of the same name that was deleted, until it is collected.
		return nil, fmt.Errorf("GatewayClassBlueprintRevision %s belongs to an earlier GatewayClassBlueprint %s", rev.Name, live.Name)
	}
	return rev, nil
}

// AsRevision is the blueprint live with the spec of rev, one of its revisions, and
// rev's UID and number as UID and generation, which key the parse cache.
func AsRevision(live *gatewrightv1alpha1.GatewayClassBlueprint, rev *gatewrightv1alpha1.GatewayClassBlueprintRevision) *gatewrightv1alpha1.GatewayClassBlueprint {
	return &gatewrightv1alpha1.GatewayClassBlueprint{
		TypeMeta: live.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: live.Name, UID: rev.UID, Generation: rev.Revision,
			Labels: live.Labels, Annotations: live.Annotations,
		},
		Spec:   *rev.Spec.DeepCopy(),
		Status: live.Status,
	}
}
