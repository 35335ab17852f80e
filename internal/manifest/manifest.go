// Package manifest reads Kubernetes objects from multi-document YAML streams, and
// applies those of YAML files to a cluster as `kubectl apply --server-side` does.
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	yaml "go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Decode returns the objects of every non-empty document in data, in order.
//
// Documents are split by a YAML parser, never by searching for "---", so a "---" inside
// a block scalar or a quoted string stays part of its value. Scalars resolve as
// kubectl and Helm resolve them (YAML 1.1, the parser Kubernetes uses), and a
// duplicate key is an error rather than silently resolved.
func Decode(data []byte) ([]*unstructured.Unstructured, error) {
	decoder := yaml.NewDecoder(bytes.NewReader(data))
	decoder.SetStrict(true)
	var objs []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		var raw any
		err := decoder.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		if raw == nil {
			continue // an empty document, or comments only
		}
		value, err := jsonValue(raw)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		object, ok := value.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("document %d: a document must be an object, not %s", doc, describe(value))
		}
		if len(object) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{Object: object}
		if obj.GetAPIVersion() == "" || obj.GetKind() == "" {
			return nil, fmt.Errorf("document %d: an object needs apiVersion and kind", doc)
		}
		objs = append(objs, obj)
	}
}

// jsonValue turns what the YAML parser produced into the types of decoded JSON that
// unstructured objects hold: map[string]any, []any, string, int64, float64, bool, nil.
func jsonValue(v any) (any, error) {
	switch v := v.(type) {
	case map[any]any:
		out := make(map[string]any, len(v))
		for key, item := range v {
			k, err := keyString(key)
			if err != nil {
				return nil, err
			}
			value, err := jsonValue(item)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = value
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			value, err := jsonValue(item)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = value
		}
		return out, nil
	case int:
		return int64(v), nil
	case uint64:
		if v <= math.MaxInt64 {
			return int64(v), nil
		}
		return float64(v), nil
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("%v cannot be represented in JSON", v)
		}
		return v, nil
	case time.Time:
		return v.Format(time.RFC3339Nano), nil
	case string, bool, int64, nil:
		return v, nil
	default:
		return nil, fmt.Errorf("unsupported value %v (%T)", v, v)
	}
}

// keyString writes a mapping key as JSON needs it, as sigs.k8s.io/yaml does.
func keyString(key any) (string, error) {
	switch k := key.(type) {
	case string:
		return k, nil
	case int:
		return strconv.Itoa(k), nil
	case int64:
		return strconv.FormatInt(k, 10), nil
	case uint64:
		return strconv.FormatUint(k, 10), nil
	case float64:
		return strconv.FormatFloat(k, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(k), nil
	case nil:
		return "null", nil
	default:
		return "", fmt.Errorf("unsupported mapping key %v (%T)", key, key)
	}
}

func describe(value any) string {
	switch value.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}
