package controllers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/summary"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// summary is the policy's summary verdict: its ancestors' (expected of them, its targets
// that fit the list), and, for a GatewayClassConfig that rides its blueprints' rollouts,
// where its change stands on each of its classes: its Gateways render it only once a
// revision carries it there.
func (r *PolicyReconciler) summary(ctx context.Context, obj client.Object, ancestors []gatewayv1.PolicyAncestorStatus, expected int) (summary.Verdict, error) {
	verdicts := []summary.Verdict{summary.Policy(obj.GetGeneration(), ancestors, expected)}
	gcc, isClassConfig := obj.(*gatewrightv1alpha1.GatewayClassConfig)
	if !isClassConfig || !revisions.Rides(gcc, r.ControllerNamespace) {
		return verdicts[0], nil
	}
	for _, ref := range gcc.Spec.TargetRefs {
		v, rides, err := r.riding(ctx, gcc, string(ref.Name))
		if err != nil {
			return summary.Verdict{}, err
		}
		if rides {
			verdicts = append(verdicts, v)
		}
	}
	return summary.Worst(verdicts...), nil
}

// riding is where gcc's change stands on the GatewayClass named class; false when the
// class has no blueprint of Gatewright to ride (the class's ancestor entry says why).
func (r *PolicyReconciler) riding(ctx context.Context, gcc *gatewrightv1alpha1.GatewayClassConfig, class string) (summary.Verdict, bool, error) {
	gc, err := getClass(ctx, r.Client, class)
	blueprint, ok := translate.ClassBlueprint(gc)
	if err != nil || !ok {
		return summary.Verdict{}, false, err
	}
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
	if err := r.Get(ctx, client.ObjectKey{Name: blueprint}, bp); err != nil {
		return summary.Verdict{}, false, client.IgnoreNotFound(err)
	}
	rollout := bp.Status.Rollout
	from := bp.Status.CurrentRevision
	if rollout != nil && rollout.Phase != gatewrightv1alpha1.RolloutComplete {
		from = rollout.From
	} else {
		rollout = nil
	}
	before, err := r.inEffectAt(ctx, gcc, bp.Name, from)
	if err != nil || rollout == nil {
		return summary.Riding(bp.Name, nil, before, false), true, err
	}
	carried, err := r.inEffectAt(ctx, gcc, bp.Name, rollout.Revision)
	return summary.Riding(bp.Name, rollout, before, carried), true, err
}

// inEffectAt tells whether revision n of blueprint renders gcc as it is. A revision the
// cache has not read yet renders nothing of it yet.
func (r *PolicyReconciler) inEffectAt(ctx context.Context, gcc *gatewrightv1alpha1.GatewayClassConfig, blueprint string, n int64) (bool, error) {
	var rev *gatewrightv1alpha1.GatewayClassBlueprintRevision
	if n > 0 {
		rev = &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
		if err := r.Get(ctx, client.ObjectKey{Name: revisions.Name(blueprint, n)}, rev); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
	}
	return revisions.InEffect(gcc, r.ControllerNamespace, rev)
}

// enforcement judges how much of the policy took effect over every context the target
// reaches (snapshot.Gatherer.Policy).
func (r *PolicyReconciler) enforcement(ctx context.Context, g *snapshot.Gatherer, obj client.Object, target gatewayv1.LocalPolicyTargetReference) (translate.Verdict, error) {
	reached, err := g.Policy(ctx, obj.GetNamespace(), target, r.Blueprints)
	if err != nil {
		return translate.Verdict{}, err
	}
	judge := translate.NewEnforcement(values.Source{Kind: r.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()})
	for _, c := range reached {
		if c.Err != nil {
			judge.NotComputed(c.String(), c.Err)
			continue
		}
		judge.Add(c.String(), c.Values)
	}
	return judge.Verdict(), nil
}
