package values

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// Schema validates values against a blueprint's valuesSchema with the OpenAPI v3
// validator the API server uses for custom resources.
type Schema struct {
	validator *validate.SchemaValidator
}

// CompileSchema checks that raw is a usable OpenAPI v3 schema and prepares it.
func CompileSchema(raw *apiextensionsv1.JSON) (*Schema, error) {
	var props apiextensionsv1.JSONSchemaProps
	decoder := json.NewDecoder(bytes.NewReader(raw.Raw))
	decoder.DisallowUnknownFields() // a misspelt keyword would otherwise be ignored
	if err := decoder.Decode(&props); err != nil {
		return nil, fmt.Errorf("valuesSchema: %w", err)
	}
	if err := checkTypes(&props, field.NewPath("valuesSchema")); err != nil {
		return nil, err
	}
	var schema spec.Schema
	if err := json.Unmarshal(raw.Raw, &schema); err != nil {
		return nil, fmt.Errorf("valuesSchema: %w", err)
	}
	return &Schema{validator: validate.NewSchemaValidator(&schema, nil, "", strfmt.Default)}, nil
}

// violations lists how values break the schema, with paths written as the validator
// writes them: keys joined by dots, list indexes in brackets.
func (s *Schema) violations(values map[string]any) []Violation {
	var out []Violation
	for _, err := range s.validator.Validate(values).Errors {
		v := Violation{Message: err.Error()}
		var verr *openapierrors.Validation
		if errors.As(err, &verr) && verr.Code() == openapierrors.UnallowedPropertyCode {
			// The validator names the object that holds the key; name the key itself.
			v.Path = strings.TrimPrefix(verr.Name+"."+fmt.Sprint(verr.Value), ".")
			v.Message = "is not allowed by the valuesSchema"
		} else if errors.As(err, &verr) {
			v.Path = strings.TrimPrefix(verr.Name, ".")
			// The validator repeats the path ("a.b in body should be ..."); keep the verdict.
			v.Message = strings.TrimPrefix(v.Message, verr.Name+" in body ")
			if verr.Code() != openapierrors.InvalidTypeCode && scalar(verr.Value) {
				v.Message += ", got " + quotePrefix(verr.Value)
			}
		}
		out = append(out, v)
	}
	return out
}

// quotedValueLimit bounds how much of a refused value a message quotes: values are
// tenant data, and messages end up in conditions and events, which are bounded.
const quotedValueLimit = 64

// quotePrefix quotes a scalar value, or the beginning of a long string and its length.
func quotePrefix(value any) string {
	text, isString := value.(string)
	if !isString || len(text) <= quotedValueLimit {
		return fmt.Sprintf("%#v", value)
	}
	cut := quotedValueLimit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%q... (%d bytes)", text[:cut], len(text))
}

func scalar(value any) bool {
	switch value.(type) {
	case string, bool, int64, float64:
		return true
	}
	return false
}

var openAPITypes = map[string]bool{"": true, "object": true, "array": true, "string": true, "integer": true, "number": true, "boolean": true}

// checkTypes refuses unknown type names, which the validator would silently accept.
func checkTypes(props *apiextensionsv1.JSONSchemaProps, path *field.Path) error {
	if !openAPITypes[props.Type] {
		return fmt.Errorf("%s: unknown type %q", path.Child("type"), props.Type)
	}
	children := map[*field.Path]*apiextensionsv1.JSONSchemaProps{}
	for name, child := range props.Properties {
		children[path.Child("properties").Key(name)] = &child
	}
	if props.Items != nil && props.Items.Schema != nil {
		children[path.Child("items")] = props.Items.Schema
	}
	if props.AdditionalProperties != nil && props.AdditionalProperties.Schema != nil {
		children[path.Child("additionalProperties")] = props.AdditionalProperties.Schema
	}
	for _, group := range []struct {
		name    string
		schemas []apiextensionsv1.JSONSchemaProps
	}{{"allOf", props.AllOf}, {"anyOf", props.AnyOf}, {"oneOf", props.OneOf}} {
		for i := range group.schemas {
			children[path.Child(group.name).Index(i)] = &group.schemas[i]
		}
	}
	for childPath, child := range children {
		if err := checkTypes(child, childPath); err != nil {
			return err
		}
	}
	return nil
}

// Violation is one way the values break the valuesSchema.
type Violation struct {
	Path    string
	Message string
	// SetBy is the origin of the offending value; nil for a value that is missing.
	SetBy *Origin
}

// SchemaError says that the effective values do not satisfy the blueprint's valuesSchema.
type SchemaError struct {
	Blueprint  string
	Violations []Violation
}

func (e *SchemaError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.Path + ": " + v.Message
		if v.SetBy != nil {
			parts[i] += " (set by " + v.SetBy.String() + ")"
		}
	}
	return fmt.Sprintf("values do not match the valuesSchema of GatewayClassBlueprint %s: %s", e.Blueprint, strings.Join(parts, "; "))
}

// Check validates values that no chain computed, such as values given on a command
// line: the violations name no origin.
func (s *Schema) Check(blueprint string, values map[string]any) error {
	violations := s.violations(values)
	if len(violations) == 0 {
		return nil
	}
	sort.SliceStable(violations, func(i, j int) bool { return violations[i].Path < violations[j].Path })
	return &SchemaError{Blueprint: blueprint, Violations: violations}
}

func (in Inputs) checkValues(merged *tree, values map[string]any) error {
	bp, schema := in.Blueprint, in.Schema
	if schema == nil {
		var err error
		if schema, err = CompileSchema(bp.Spec.ValuesSchema); err != nil {
			return fmt.Errorf("GatewayClassBlueprint %s: %w", bp.Name, err)
		}
	}
	violations := schema.violations(values)
	if len(violations) == 0 {
		return nil
	}
	origins := fieldOrigins(merged)
	for i := range violations {
		if leaf, exact, ok := origins.find(violations[i].Path); ok {
			violations[i].SetBy = &leaf.origin
			if exact {
				violations[i].Path = leaf.path
			}
		}
	}
	sort.SliceStable(violations, func(i, j int) bool { return violations[i].Path < violations[j].Path })
	return &SchemaError{Blueprint: bp.Name, Violations: violations}
}

// originIndex maps paths written the way the validator writes them (keys joined by
// dots, no quoting) to the leaf there.
type originIndex map[string]indexedLeaf

type indexedLeaf struct {
	path   string // as renderPath writes it
	origin Origin
}

func fieldOrigins(t *tree) originIndex {
	index := originIndex{}
	t.leaves(nil, func(path []string, e *entry) {
		if !e.deleted {
			index[strings.Join(path, ".")] = indexedLeaf{path: renderPath(path), origin: e.origin}
		}
	})
	return index
}

// find returns the leaf at fieldPath (exact), the list or scalar fieldPath lies in, or
// else the first leaf under fieldPath, for an object that is wrong as a whole.
func (idx originIndex) find(fieldPath string) (leaf indexedLeaf, exact, ok bool) {
	for p := fieldPath; p != ""; {
		if leaf, ok := idx[p]; ok {
			return leaf, p == fieldPath, true
		}
		cut := strings.LastIndexAny(p, ".[")
		if cut < 0 {
			break
		}
		p = p[:cut]
	}
	var under []string
	for p := range idx {
		if strings.HasPrefix(p, fieldPath+".") || strings.HasPrefix(p, fieldPath+"[") {
			under = append(under, p)
		}
	}
	if len(under) == 0 {
		return indexedLeaf{}, false, false
	}
	sort.Strings(under)
	return idx[under[0]], false, true
}
