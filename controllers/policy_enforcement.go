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
	contexts, err := r.contextsReached(ctx, obj.GetNamespace(), target)
	if err != nil {
		return translate.Verdict{}, err
	}
	judge := translate.NewEnforcement(values.Source{Kind: r.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()})
	for _, c := range contexts {
		if in, ok := inputs.get(ctx, c); ok {
			judge.Add(c.String(), in.compute(c))
		}
		// else the Gateway or route reports what keeps it from computing values
	}
	return judge.Verdict(), nil
}

// valueInputsCache reads the values inputs of each context once per class and pair of
// namespaces, since one policy often reaches many Gateways of one class, and computes
// the values once per chain of policies.
type valueInputsCache struct {
	reader              client.Reader
	controllerNamespace string
	blueprints          *render.Cache
	inputs              map[string]*valueInputs // nil: cannot be computed
}

// valueInputs are the inputs of one class and pair of namespaces, with the values
// computed from them in this judgement by chain: most Gateways of a namespace take the
// same policies, so the first of them computes the values of all.
type valueInputs struct {
	values.Inputs
	class      *gatewayv1.GatewayClass
	blueprints *render.Cache
	computed   map[string]*translate.Result // by values.Inputs.ChainKey
}

// compute returns the values of c, computed once per chain.
func (v *valueInputs) compute(c valuesContext) *translate.Result {
	key, err := v.ChainKey(c.gateway, c.route)
	if err != nil {
		return &translate.Result{Err: err}
	}
	if done, ok := v.computed[key]; ok {
		return done
	}
	snap := translate.Gateway{Gateway: c.gateway, Class: v.class, Values: v.Inputs}
	res := snap.Valuing(v.blueprints, c.route)
	if v.computed == nil {
		v.computed = map[string]*translate.Result{}
	}
	v.computed[key] = res
	return res
}

// get returns the inputs of c, false when c's values are not computed at all: its class
// is not Gatewright's, its blueprint is missing or broken (which the Gateway reports), or
// c is a route and the blueprint renders nothing for routes.
func (cache *valueInputsCache) get(ctx context.Context, c valuesContext) (*valueInputs, bool) {
	routeNamespace := c.gateway.Namespace
	if c.route != nil {
		routeNamespace = c.route.Namespace
	}
	key := string(c.gateway.Spec.GatewayClassName) + " " + c.gateway.Namespace + " " + routeNamespace
	in, seen := cache.inputs[key]
	if !seen {
		in = cache.load(ctx, string(c.gateway.Spec.GatewayClassName), c.gateway.Namespace, routeNamespace)
		if cache.inputs == nil {
			cache.inputs = map[string]*valueInputs{}
		}
		cache.inputs[key] = in
	}
	if in == nil || (c.route != nil && in.Blueprint.Spec.HTTPRouteTemplate == nil) {
		return nil, false
	}
	return in, true
}

func (cache *valueInputsCache) load(ctx context.Context, className string, namespaces ...string) *valueInputs {
	class, err := getClass(ctx, cache.reader, className)
	if err != nil || !translate.IsGatewrightClass(class) {
		return nil
	}
	in, err := snapshot.Values(ctx, cache.reader, cache.controllerNamespace, class, namespaces...)
	if err != nil {
		return nil
	}
	if _, err := cache.blueprints.Get(in.Blueprint); err != nil {
		return nil
	}
	return &valueInputs{Inputs: in, class: class, blueprints: cache.blueprints}
}
