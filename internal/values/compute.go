package values

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Result is the outcome of the chain for one Gateway or HTTPRoute.
type Result struct {
	// Values are the effective values, handed to templates as .Values.
	Values map[string]any
	// Provenance has one entry per leaf of Values, per key a null unset, and per value
	// an Atomic or Merge block dropped, by path.
	Provenance []Leaf
	// Policies reports, for every object that took part, in chain order, what of it
	// took effect.
	Policies []PolicyReport
}

// ForGateway computes the values of gw (levels 1 to 6). When the values violate the
// blueprint's valuesSchema it returns the Result together with a *SchemaError, so that
// callers can still show where the offending values came from. A policy that cannot be
// used fails the values with a *LimitError or a *PolicyError.
func (in Inputs) ForGateway(gw *gatewayv1.Gateway) (*Result, error) {
	layers, err := in.gatewayChain(gw)
	if err != nil {
		return nil, err
	}
	return in.compute(layers)
}

// ForHTTPRoute computes the values of route attached to gw: the Gateway's chain, the
// provider levels of the route's namespace (9 and 10) and the route's levels 7 and 8.
// A Gateway owner's overrides therefore bind every route on it.
func (in Inputs) ForHTTPRoute(gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute) (*Result, error) {
	layers, err := in.gatewayChain(gw)
	if err != nil {
		return nil, err
	}
	return in.compute(append(layers, in.routeChain(gw, route)...))
}

// compute reads every policy of the chain, orders their blocks and folds them.
func (in Inputs) compute(layers []layer) (*Result, error) {
	var chain []placed
	for _, l := range layers {
		for _, p := range l.policies {
			d, err := p.decode()
			if err != nil {
				return nil, err
			}
			chain = append(chain, placed{policy: p, level: l.level, decoded: d})
		}
	}
	sortChain(chain)

	forbid := in.Blueprint != nil && in.Blueprint.Spec.TenantUnset == gatewrightv1alpha1.TenantUnsetForbidden
	f := newFolder(forbid)
	f.fold(chain)

	result := &Result{
		Values:     f.acc.values(),
		Provenance: provenance(f.acc, f.dropped()),
		Policies:   f.reports(chain),
	}
	if in.Blueprint != nil && in.Blueprint.Spec.ValuesSchema != nil {
		if err := in.checkValues(f.acc, result.Values); err != nil {
			return result, err
		}
	}
	return result, nil
}
