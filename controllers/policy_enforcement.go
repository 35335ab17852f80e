package controllers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// conditionEnforced is the type of a policy ancestor's Enforced condition (GEP-713).
const conditionEnforced = "Enforced"

// enforcement judges how much of the policy took effect over every context the target
// reaches; inputs are shared by the targets of one policy, which often reach the same
// classes and namespaces.
func (r *PolicyReconciler) enforcement(ctx context.Context, obj client.Object, target gatewayv1.LocalPolicyTargetReference, inputs *valueInputsCache) (translate.Verdict, error) {
	reach := snapshot.Reach{Reader: r.Client, ControllerNamespace: r.ControllerNamespace, ClassIndex: indexGatewayClassName}
	contexts, err := reach.ContextsReached(ctx, obj.GetNamespace(), target)
	if err != nil {
		return translate.Verdict{}, err
	}
	judge := translate.NewEnforcement(values.Source{Kind: r.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()})
	for _, c := range contexts {
		if res, err := inputs.of(ctx, c); err == nil {
			judge.Add(c.String(), res)
		}
		// else the Gateway or route reports what keeps it from computing values
	}
	if inputs.behind != nil {
		// A revision the cache has not read yet: judged without it, the verdict would
		// stand until something else changed.
		return translate.Verdict{}, inputs.behind
	}
	return judge.Verdict(), nil
}

// valueInputsCache computes the values of the contexts of one judgement, each chain
// once per blueprint revision (snapshot.ContextValues), for all the targets of a policy.
type valueInputsCache struct {
	reader              client.Reader
	controllerNamespace string
	blueprints          *render.Cache
	values              *snapshot.ContextValues
	// targets are the revisions rollouts assigned the Gateways, read once per Gateway
	// however many of its routes are judged; revisions the blueprints they run, by
	// blueprint and assigned revision.
	targets   map[client.ObjectKey]int64
	revisions snapshot.RevisionReads
	// behind is set when a revision was not in the cache.
	behind error
}

func (cache *valueInputsCache) of(ctx context.Context, c snapshot.Context) (*translate.Result, error) {
	if cache.values == nil {
		cache.values = &snapshot.ContextValues{Reader: cache.reader, ControllerNamespace: cache.controllerNamespace,
			Blueprints: cache.blueprints, Running: cache.running}
	}
	return cache.values.Of(ctx, c)
}

// running is the blueprint revision gw runs, as its reconciler renders it
// (snapshot.RunningNumber). Each is read once per judgement, however many Gateways run it.
func (cache *valueInputsCache) running(ctx context.Context, gw *gatewayv1.Gateway, live *gatewrightv1alpha1.GatewayClassBlueprint) (*gatewrightv1alpha1.GatewayClassBlueprintRevision, error) {
	target, assigned := cache.targets[client.ObjectKeyFromObject(gw)]
	if !assigned {
		var err error
		if target, err = apply.TargetRevision(ctx, cache.reader, gw, live.Name); err != nil {
			return nil, err
		}
		if cache.targets == nil {
			cache.targets = map[client.ObjectKey]int64{}
		}
		cache.targets[client.ObjectKeyFromObject(gw)] = target
	}
	rev, err := cache.revisions.Running(ctx, cache.reader, live, target)
	if apierrors.IsNotFound(err) {
		cache.behind = err
	}
	return rev, err
}
