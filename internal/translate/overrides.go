package translate

import (
	"fmt"

	"github.com/gatewright/gatewright/internal/values"
)

// overridden runs the values chain, then merges overrides over its result. The chain
// knows nothing of them, so with overrides it runs without the valuesSchema, which is
// checked on the values the templates will see instead: an override may as well mend
// values the schema refuses as break good ones.
func overridden(in values.Inputs, overrides []map[string]any, compute func(values.Inputs) (*values.Result, error)) (*values.Result, error) {
	if len(overrides) == 0 {
		return compute(in)
	}
	blueprint := *in.Blueprint
	blueprint.Spec.ValuesSchema = nil
	schemaless := in
	schemaless.Blueprint, schemaless.Schema = &blueprint, nil
	result, err := compute(schemaless)
	if err != nil {
		return result, err
	}
	merged := any(result.Values)
	for _, patch := range overrides {
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
				return result, fmt.Errorf("GatewayClassBlueprint %s: %w", in.Blueprint.Name, err)
			}
		}
		if err := schema.Check(in.Blueprint.Name, vals); err != nil {
			return result, fmt.Errorf("with the overrides, %w", err)
		}
	}
	overriddenResult := *result
	overriddenResult.Values = vals
	return &overriddenResult, nil
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
