// Package manifest reads Kubernetes objects from multi-document YAML streams.
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// Decode returns the objects of every non-empty document in data, in order. Documents
// are split by a YAML parser, never by searching for "---", so a "---" inside a block
// scalar or a quoted string stays part of its value.
func Decode(data []byte) ([]*unstructured.Unstructured, error) {
	decoder := yaml.NewDecoder(bytes.NewReader(data))
	var objs []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		var node yaml.Node
		err := decoder.Decode(&node)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		obj, err := toObject(&node)
		if err != nil {
			return nil, fmt.Errorf("document %d (line %d): %w", doc, node.Line, err)
		}
		if obj != nil {
			objs = append(objs, obj)
		}
	}
}

// toObject converts one document; an empty document (or one of comments only) gives nil.
func toObject(doc *yaml.Node) (*unstructured.Unstructured, error) {
	if len(doc.Content) == 0 || doc.Content[0].Tag == "!!null" {
		return nil, nil
	}
	if doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("a document must be an object, not %s", doc.Content[0].ShortTag())
	}
	raw, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	// Strict: a duplicate key is an error, never silently resolved.
	data, err := sigsyaml.YAMLToJSONStrict(raw)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := utiljson.Unmarshal(data, &obj.Object); err != nil { // integers as int64, as in the API machinery
		return nil, err
	}
	if len(obj.Object) == 0 {
		return nil, nil
	}
	if obj.GetAPIVersion() == "" || obj.GetKind() == "" {
		return nil, fmt.Errorf("an object needs apiVersion and kind")
	}
	return obj, nil
}
