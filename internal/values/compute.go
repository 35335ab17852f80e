package values

import (
	"strconv"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/routes"
)

// Result is the outcome of the chain for one Gateway or route.
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
	layers, err := in.chain(gw, nil)
	if err != nil {
		return nil, err
	}
	return in.compute(layers, gw.Namespace)
}

// ForRoute computes the values of route, of any kind, attached to gw: the Gateway's
// chain, the provider levels of the route's namespace (9 and 10) and the route's levels
// 7 and 8. A Gateway owner's overrides therefore bind every route on it.
func (in Inputs) ForRoute(gw *gatewayv1.Gateway, route routes.Route) (*Result, error) {
	layers, err := in.chain(gw, route)
	if err != nil {
		return nil, err
	}
	return in.compute(layers, route.GetNamespace())
}

// ChainKey names the chain of gw's values, or of route's on gw when route is not nil:
// each level with the policies at it, by kind, namespace and name. The values depend on
// nothing but the chain and the Inputs (a condition sees the values below its block,
// never the Gateway or route), so contexts with the same Inputs and the same key have
// the same Result: a caller with many Gateways and few chains computes each chain once.
// The error is the *ParametersRefError ForGateway would return.
func (in Inputs) ChainKey(gw *gatewayv1.Gateway, route routes.Route) (string, error) {
	layers, err := in.chain(gw, route)
	if err != nil {
		return "", err
	}
	var key strings.Builder
	for _, l := range layers {
		// An empty level adds nothing, so a route without policies of its own shares its
		// Gateway's chain.
		if len(l.policies) == 0 {
			continue
		}
		key.WriteString(strconv.Itoa(int(l.level)))
		key.WriteByte(':')
		for _, p := range l.policies {
			key.WriteString(p.source.String())
			key.WriteByte(',')
		}
		key.WriteByte(';')
	}
	return key.String(), nil
}

// chain returns the layers of gw's values, or of route's on gw when route is not nil.
func (in Inputs) chain(gw *gatewayv1.Gateway, route routes.Route) ([]layer, error) {
	layers, err := in.gatewayChain(gw)
	if err != nil || route == nil {
		return layers, err
	}
	return append(layers, in.routeChain(gw, route)...), nil
}

// compute reads every policy of the chain, orders their blocks and folds them; the
// values are those of a Gateway or route in namespace.
func (in Inputs) compute(layers []layer, namespace string) (*Result, error) {
	chain, err := in.read(layers, namespace)
	if err != nil {
		return nil, err
	}
	sortChain(chain)

	forbid := in.Blueprint != nil && in.Blueprint.Spec.TenantUnset == gatewrightv1alpha1.TenantUnsetForbidden
	f := newFolder(forbid)
	f.budget.shared = in.Shared
	defer f.budget.stop()
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
