package render

import (
	"slices"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// valuesSchemaTemplate names the valuesSchema in a Warning, which has no line there.
const valuesSchemaTemplate = "valuesSchema"

// openSchemaWarnings reports the objects of the valuesSchema that list properties and
// still take any other key: a tenant's typo there (replica for replicas) passes the
// schema and does nothing. An object that means to be open says so: a map schema
// (additionalProperties with a schema or true), or x-kubernetes-preserve-unknown-fields.
func (b *Blueprint) openSchemaWarnings() []Warning {
	schema := b.schemaProps()
	if schema == nil {
		return nil
	}
	var warnings []Warning
	walkSchema(schema, nil, func(s *apiextensionsv1.JSONSchemaProps, path []string) {
		preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
		if len(s.Properties) > 0 && s.AdditionalProperties == nil && !preserve {
			warnings = append(warnings, Warning{Template: valuesSchemaTemplate, Message: writePath(path) +
				" lists properties but takes any other key, so a tenant's typo there passes and does nothing: add additionalProperties: false"})
		}
	})
	return warnings
}

// walkSchema visits schema and the schemas of its properties, items and map values,
// at the path of .Values they describe ("[]" for an item or a map value).
func walkSchema(schema *apiextensionsv1.JSONSchemaProps, path []string, visit func(*apiextensionsv1.JSONSchemaProps, []string)) {
	visit(schema, path)
	names := make([]string, 0, len(schema.Properties))
	for name := range schema.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		property := schema.Properties[name]
		walkSchema(&property, append(slices.Clone(path), name), visit)
	}
	if schema.Items != nil && schema.Items.Schema != nil {
		walkSchema(schema.Items.Schema, append(slices.Clone(path), "[]"), visit)
	}
	if schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil {
		walkSchema(schema.AdditionalProperties.Schema, append(slices.Clone(path), "[]"), visit)
	}
}
