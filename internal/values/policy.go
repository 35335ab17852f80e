package values

import (
	"fmt"
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// policy is one object that contributes values at one level of the chain.
type policy struct {
	source  Source
	created time.Time
	values  *gatewrightv1alpha1.DefaultsAndOverrides
}

func newPolicy(kind string, meta metav1.ObjectMeta, values *gatewrightv1alpha1.DefaultsAndOverrides) policy {
	return policy{
		source:  Source{Kind: kind, Namespace: meta.Namespace, Name: meta.Name},
		created: meta.CreationTimestamp.Time,
		values:  values,
	}
}

// layer is one level of the chain with its policies, the winner of a conflict first.
type layer struct {
	level    Level
	policies []policy
}

// newLayer sorts policies so that the oldest wins a conflicting key and, among equally
// old ones, the first by namespace/name: results never depend on list or cache order.
func newLayer(level Level, policies []policy) layer {
	sort.Slice(policies, func(i, j int) bool {
		a, b := policies[i], policies[j]
		if !a.created.Equal(b.created) {
			return a.created.Before(b.created)
		}
		return a.source.Namespace+"/"+a.source.Name < b.source.Namespace+"/"+b.source.Name
	})
	return layer{level: level, policies: policies}
}

// decodedPolicy holds a policy's two halves as plain objects.
type decodedPolicy struct {
	defaults, overrides map[string]any
}

// decode checks each half of p against the bounds, then decodes it.
func (p policy) decode() (decodedPolicy, error) {
	if p.values == nil {
		return decodedPolicy{}, nil
	}
	defaults, err := p.decodeHalf(Default)
	if err != nil {
		return decodedPolicy{}, err
	}
	overrides, err := p.decodeHalf(Override)
	if err != nil {
		return decodedPolicy{}, err
	}
	return decodedPolicy{defaults: defaults, overrides: overrides}, nil
}

func (p policy) decodeHalf(half Half) (map[string]any, error) {
	if err := p.checkLimits(half); err != nil {
		return nil, err
	}
	object, err := decodeObject(p.block(half))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", p.source, blockField(p.source.Kind, half), err)
	}
	return object, nil
}

// block returns one half of p as JSON, nil when p has none.
func (p policy) block(half Half) *apiextensionsv1.JSON {
	switch {
	case p.values == nil:
		return nil
	case half == Default:
		return p.values.Default
	default:
		return p.values.Override
	}
}

// blockField is where a half lives in an object of kind, for error messages.
func blockField(kind string, half Half) string {
	if kind == gatewrightv1alpha1.KindGatewayClassBlueprint {
		return "spec.values." + string(half)
	}
	return "spec." + string(half)
}

func decodeObject(raw *apiextensionsv1.JSON) (map[string]any, error) {
	if raw == nil || len(raw.Raw) == 0 || strings.TrimSpace(string(raw.Raw)) == "null" {
		return nil, nil
	}
	var value any
	if err := utiljson.Unmarshal(raw.Raw, &value); err != nil {
		return nil, err
	}
	object, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be an object, not %s", jsonType(value))
	}
	return object, nil
}

func jsonType(value any) string {
	switch value.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	default:
		return "a number"
	}
}
