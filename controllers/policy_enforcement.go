package controllers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

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
	return judge.Verdict(), nil
}

// valueInputsCache computes the values of the contexts of one judgement, each chain
// once (snapshot.ContextValues), for all the targets of a policy.
type valueInputsCache struct {
	reader              client.Reader
	controllerNamespace string
	blueprints          *render.Cache
	values              *snapshot.ContextValues
}

func (cache *valueInputsCache) of(ctx context.Context, c snapshot.Context) (*translate.Result, error) {
	if cache.values == nil {
		cache.values = &snapshot.ContextValues{Reader: cache.reader, ControllerNamespace: cache.controllerNamespace, Blueprints: cache.blueprints}
	}
	return cache.values.Of(ctx, c)
}
