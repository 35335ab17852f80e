package offline

import (
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/values"
)

// gatewayValues are the effective values of gw, with s.Overrides applied.
func (s *Set) gatewayValues(in values.Inputs, gw *gatewayv1.Gateway) (map[string]any, []string, error) {
	return s.overridden(in, func(in values.Inputs) (*values.Result, error) { return in.ForGateway(gw) })
}

// routeValues are the effective values of route on gw, with s.Overrides applied.
func (s *Set) routeValues(in values.Inputs, gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute) (map[string]any, []string, error) {
	return s.overridden(in, func(in values.Inputs) (*values.Result, error) { return in.ForHTTPRoute(gw, route) })
}

// overridden runs the values chain, then merges s.Overrides over its result. The chain
// knows nothing of them, so with overrides it runs without the valuesSchema, which is
// checked on the values the templates will see instead: an override may as well mend
// values the schema refuses as break good ones.
func (s *Set) overridden(in values.Inputs, compute func(values.Inputs) (*values.Result, error)) (map[string]any, []string, error) {
	if len(s.Overrides) == 0 {
		result, err := compute(in)
		if err != nil {
			return nil, nil, err
		}
		return result.Values, result.FailedClosedWarnings(), nil
	}
	blueprint := *in.Blueprint
	blueprint.Spec.ValuesSchema = nil
	schemaless := in
	schemaless.Blueprint, schemaless.Schema = &blueprint, nil
	result, err := compute(schemaless)
	if err != nil {
		return nil, nil, err
	}
	merged := any(result.Values)
	for _, patch := range s.Overrides {
		merged = mergePatch(merged, patch)
	}
	vals, _ := merged.(map[string]any)
	if vals == nil {
		vals = map[string]any{}
	}
	if in.Blueprint.Spec.ValuesSchema != nil {
		schema := in.Schema
		if schema == nil {
			if schema, err = values.CompileSchema(in.Blueprint.Spec.ValuesSchema); err != nil {
				return nil, nil, fmt.Errorf("GatewayClassBlueprint %s: %w", in.Blueprint.Name, err)
			}
		}
		if err := schema.Check(in.Blueprint.Name, vals); err != nil {
			return nil, nil, fmt.Errorf("with the overrides, %w", err)
		}
	}
	return vals, result.FailedClosedWarnings(), nil
}

// mergePatch applies patch to target as a JSON merge patch (RFC 7386), the chain's own
// default strategy: objects merge key by key, null removes a key, anything else
// replaces. Neither argument is changed.
func mergePatch(target any, patch any) any {
	patchObject, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	targetObject, _ := target.(map[string]any)
	out := make(map[string]any, len(targetObject)+len(patchObject))
	for k, v := range targetObject {
		out[k] = v
	}
	for k, v := range patchObject {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = mergePatch(out[k], v)
	}
	return out
}
