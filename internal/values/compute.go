package values

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Result is the outcome of the chain for one Gateway or HTTPRoute.
type Result struct {
	// Values are the effective values, handed to templates as .Values.
	Values map[string]any
	// Provenance has one entry per leaf of Values (and per key a null unset), by path.
	Provenance []Leaf
	// Policies reports, for every object that took part, in chain order, what of it
	// was overridden.
	Policies []PolicyReport
}

// ForGateway computes the values of gw (levels 1 to 6). When the values violate the
// blueprint's valuesSchema it returns the Result together with a *SchemaError, so that
// callers can still show where the offending values came from.
func (in Inputs) ForGateway(gw *gatewayv1.Gateway) (*Result, error) {
	layers, err := in.gatewayChain(gw)
	if err != nil {
		return nil, err
	}
	return in.compute(layers)
}

// ForHTTPRoute computes the values of route attached to gw: the Gateway's chain, then
// levels 7 and 8. A Gateway owner's overrides therefore bind every route on it.
func (in Inputs) ForHTTPRoute(gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute) (*Result, error) {
	layers, err := in.gatewayChain(gw)
	if err != nil {
		return nil, err
	}
	return in.compute(append(layers, in.routeChain(gw, route)...))
}

// compute applies defaults from the lowest level up, then overrides from the highest
// level down; within a level the winner of a conflict is applied last.
func (in Inputs) compute(layers []layer) (*Result, error) {
	decoded := make([][]decodedPolicy, len(layers))
	for i, l := range layers {
		decoded[i] = make([]decodedPolicy, len(l.policies))
		for j, p := range l.policies {
			d, err := p.decode()
			if err != nil {
				return nil, err
			}
			decoded[i][j] = d
		}
	}

	merged := newTree()
	for i, l := range layers {
		for j := len(l.policies) - 1; j >= 0; j-- {
			merged.apply(decoded[i][j].defaults, Origin{Source: l.policies[j].source, As: Default, Level: l.level})
		}
	}
	for i := len(layers) - 1; i >= 0; i-- {
		l := layers[i]
		for j := len(l.policies) - 1; j >= 0; j-- {
			merged.apply(decoded[i][j].overrides, Origin{Source: l.policies[j].source, As: Override, Level: l.level})
		}
	}

	result := &Result{
		Values:     merged.values(),
		Provenance: provenance(merged),
		Policies:   reports(merged, layers, decoded),
	}
	if in.Blueprint != nil && in.Blueprint.Spec.ValuesSchema != nil {
		if err := in.checkValues(merged, result.Values); err != nil {
			return result, err
		}
	}
	return result, nil
}
