package render

import (
	"slices"
	"text/template"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/gatewright/gatewright/internal/values"
)

// UnusedValues returns the values of res that no template of the blueprint reads and its
// valuesSchema does not declare: a tenant's typo (replica for replicas) renders nothing
// and breaks nothing, so only this can tell.
func (b *Blueprint) UnusedValues(res *values.Result) []values.UnusedValue {
	if res == nil {
		return nil
	}
	return b.known.Unused(res.Provenance)
}

// knownValues gathers what the templates (gateway, route, status, helpers and their
// defines) read of .Values and what schema declares; schema may be nil.
func knownValues(templates []*template.Template, schema *apiextensionsv1.JSONSchemaProps) values.Known {
	var known values.Known
	for _, t := range templates {
		if t.Tree == nil || t.Tree.Root == nil {
			continue
		}
		w := pathWalker{tree: t.Tree}
		w.walk(t.Tree.Root, rootScope)
		known.All = known.All || w.known.All
		known.Nodes = append(known.Nodes, w.known.Nodes...)
		known.Subtrees = append(known.Subtrees, w.known.Subtrees...)
	}
	if schema != nil {
		declare(schema, nil, &known)
	}
	// Templates read the same paths many times over; each is checked once per value.
	known.Nodes, known.Subtrees = distinct(known.Nodes), distinct(known.Subtrees)
	return known
}

func distinct(paths [][]string) [][]string {
	slices.SortFunc(paths, slices.Compare)
	return slices.CompactFunc(paths, slices.Equal)
}

// declare adds the paths schema declares at path: the keys of its properties, and whole
// the parts whose keys it leaves to the author (a map, preserved unknown fields, a
// combination, or an object that lists no properties) or that are not objects.
func declare(schema *apiextensionsv1.JSONSchemaProps, path []string, known *values.Known) {
	open := schema.AdditionalProperties != nil && (schema.AdditionalProperties.Allows || schema.AdditionalProperties.Schema != nil)
	preserve := schema.XPreserveUnknownFields != nil && *schema.XPreserveUnknownFields
	if len(schema.Properties) == 0 || open || preserve || len(schema.AllOf)+len(schema.AnyOf)+len(schema.OneOf) > 0 {
		if len(path) == 0 {
			known.All = true
			return
		}
		known.Subtrees = append(known.Subtrees, path)
		return
	}
	if len(path) > 0 {
		known.Nodes = append(known.Nodes, path)
	}
	for name, property := range schema.Properties {
		declare(&property, append(slices.Clone(path), name), known)
	}
}
