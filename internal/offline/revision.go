package offline

import (
	"context"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// atRevision makes snap, gw's, compute with the blueprint revision gw runs, as the
// controller does: the one its Rendering's targetRevision names, else the blueprint's
// currentRevision. A set that does not hold that revision (files without revisions, a
// caller who may not read them) computes with the live spec, as before revisions. A
// blueprint whose spec the set proposes (With) computes with that spec: it is the new
// revision, which its Gateways run once the rollout reaches them.
func (s *Set) atRevision(ctx context.Context, snap *translate.Gateway, gw *gatewayv1.Gateway) error {
	if s.proposed[snap.Values.Blueprint.Name] {
		return nil
	}
	target, err := apply.TargetRevision(ctx, s, gw)
	if err != nil {
		return err
	}
	if err := snapshot.AtRevision(ctx, s, snap, target); !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// NewRevisions names, sorted, the blueprints whose spec the set proposes: a change over
// a set that makes them a new revision.
func (s *Set) NewRevisions() []string {
	var names []string
	for name, proposed := range s.proposed {
		if proposed {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Blueprint finds a GatewayClassBlueprint by name.
func (s *Set) Blueprint(name string) *gatewrightv1alpha1.GatewayClassBlueprint {
	at, ok := s.indexed().blueprints.byKey[client.ObjectKey{Name: name}]
	if !ok {
		return nil
	}
	return &s.Blueprints[at]
}

// proposing takes, into the changed set out, the blueprints of changed over those of
// base: one whose spec is a new revision (its hash is not that of the newest revision,
// or of base's spec when base holds no revision) is proposed; one that is not keeps
// base's uid and status, as applying it would, so that its Gateways run what they run.
func proposing(out, base, changed *Set) error {
	for i := range changed.Blueprints {
		bp := &changed.Blueprints[i]
		was := base.Blueprint(bp.Name)
		if was == nil {
			out.proposed[bp.Name] = true
			continue
		}
		hash, err := revisions.SpecHash(&bp.Spec)
		if err != nil {
			return err
		}
		running, err := base.newestHash(was)
		if err != nil {
			return err
		}
		if hash != running {
			out.proposed[bp.Name] = true
			continue
		}
		kept := out.Blueprint(bp.Name)
		kept.UID, kept.Status = was.UID, *was.Status.DeepCopy()
	}
	return nil
}

// newestHash is the spec hash of bp's newest revision in the set, or of bp's spec.
func (s *Set) newestHash(bp *gatewrightv1alpha1.GatewayClassBlueprint) (string, error) {
	var newest *gatewrightv1alpha1.GatewayClassBlueprintRevision
	for i := range s.Revisions {
		if rev := &s.Revisions[i]; rev.Blueprint == bp.Name && (newest == nil || rev.Revision > newest.Revision) {
			newest = rev
		}
	}
	if newest != nil {
		return newest.Hash, nil
	}
	return revisions.SpecHash(&bp.Spec)
}
