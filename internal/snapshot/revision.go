package snapshot

import (
	"fmt"

	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// This file is the one place that decides what a Gateway runs of its blueprint: which
// spec (the live one, or a GatewayClassBlueprintRevision's) and which GatewayClassConfigs
// that ride the blueprint's rollouts (the live ones, or the copies the revision holds).

// atRevision makes snap, gathered with the live blueprint, compute with the revision its
// Gateway runs (resolve), named as the live blueprint, so that errors, metrics and
// records name it as before.
func (g *Gatherer) atRevision(ctx context.Context, snap *translate.Gateway, o options) error {
	rev, err := g.resolve(ctx, snap.Gateway, snap.Values.Blueprint, o.assigned)
	if err != nil {
		return g.reading(err, "GatewayClassBlueprint %s", snap.Values.Blueprint.Name)
	}
	snap.Revision = useRevision(&snap.Values, rev)
	return nil
}

// resolve is the revision of live, the blueprint, that gw runs; nil for the live spec.
// A blueprint whose spec is Proposed runs it. Otherwise gw runs the revision
// RunningNumber names, with the target a rollout assigned it (assigned, else read from
// its record).
func (g *Gatherer) resolve(ctx context.Context, gw *gatewayv1.Gateway, live *gatewrightv1alpha1.GatewayClassBlueprint, assigned func(blueprint string) int64) (*gatewrightv1alpha1.GatewayClassBlueprintRevision, error) {
	if g.Proposed[live.Name] {
		return nil, nil
	}
	var target int64
	if assigned != nil {
		target = assigned(live.Name)
	} else {
		var err error
		if target, err = g.target(ctx, gw, live.Name); err != nil {
			return nil, err
		}
	}
	return g.revision(ctx, live, target)
}

// revision reads the revision of live a Gateway assigned target runs; nil for revision 0,
// and, LiveWithoutRevisions, for one Reader does not hold. Such a revision is otherwise
// an error, and, read from a cache (no Rights), says that the cache is behind, which the
// Gatherer remembers (Policy). One the caller may not read is revisionRefused.
func (g *Gatherer) revision(ctx context.Context, live *gatewrightv1alpha1.GatewayClassBlueprint, target int64) (*gatewrightv1alpha1.GatewayClassBlueprintRevision, error) {
	rev, err := g.revisions.running(ctx, g.Reader, live, target)
	switch {
	case apierrors.IsNotFound(err) && g.LiveWithoutRevisions:
		return nil, nil
	case apierrors.IsNotFound(err) && g.Rights == nil:
		err = fmt.Errorf("%w (%w)", err, translate.ErrCacheBehind)
		g.revisions.behind = err
	case apierrors.IsForbidden(err) && g.Rights != nil:
		return nil, g.revisionRefused(live, target, err)
	}
	return rev, err
}

// RunningBlueprint is the blueprint of class as its Gateways run it when no rollout
// assigned them another revision: its currentRevision, else, with none yet (one made
// before revisions, or not yet reconciled), its live spec.
func (g *Gatherer) RunningBlueprint(ctx context.Context, class *gatewayv1.GatewayClass) (*gatewrightv1alpha1.GatewayClassBlueprint, error) {
	live, err := g.Blueprint(ctx, class)
	if err != nil {
		return nil, err
	}
	rev, err := g.revision(ctx, live, 0)
	if err != nil || rev == nil {
		return live, err
	}
	return AsRevision(live, rev), nil
}

// RunningNumber is the revision of live a Gateway runs: target, the revision a rollout
// assigned it (its Rendering's targetRevision), when that is newer than the blueprint's
// currentRevision, else currentRevision. A rollout's last wave moves currentRevision to
// the new revision for every Gateway at once, so the targets earlier rollouts left,
// never newer than currentRevision, need no write to be forgotten.
func RunningNumber(live *gatewrightv1alpha1.GatewayClassBlueprint, target int64) int64 {
	return max(live.Status.CurrentRevision, target)
}

// useRevision makes in, read with the live blueprint, the inputs of a Gateway on rev:
// the blueprint AsRevision, and the GatewayClassConfigs that ride the rollout as rev
// holds them (revisions.WithHeld). It returns rev's number; nil, revision 0, changes
// nothing.
func useRevision(in *values.Inputs, rev *gatewrightv1alpha1.GatewayClassBlueprintRevision) int64 {
	if rev == nil {
		return 0
	}
	in.Blueprint = AsRevision(in.Blueprint, rev)
	in.GatewayClassConfigs = revisions.WithHeld(in.GatewayClassConfigs, in.ControllerNamespace, rev)
	return rev.Revision
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
