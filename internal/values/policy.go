package values

import (
	"fmt"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// policy is one object that contributes values at one level of the chain.
type policy struct {
	source  Source
	created time.Time
	// uid and generation name the version of the object, when it has them.
	uid        types.UID
	generation int64
	values     *gatewrightv1alpha1.DefaultsAndOverrides
}

func newPolicy(kind string, meta metav1.ObjectMeta, values *gatewrightv1alpha1.DefaultsAndOverrides) policy {
	return policy{
		source:     Source{Kind: kind, Namespace: meta.Namespace, Name: meta.Name},
		created:    meta.CreationTimestamp.Time,
		uid:        meta.UID,
		generation: meta.Generation,
		values:     values,
	}
}

// layer is one level of the chain with the policies that take part there.
type layer struct {
	level    Level
	policies []policy
}

// decodedPolicy holds a policy's two halves, read; nil for a half it does not have.
type decodedPolicy struct {
	defaults, overrides *block
}

func (d decodedPolicy) half(half Half) *block {
	if half == Default {
		return d.defaults
	}
	return d.overrides
}

// halves lists a policy's halves in the order they are read.
var halves = [2]Half{Default, Override}

// measure checks each half of p against the bounds of a block, without decoding it,
// and returns their sizes, in the order of halves.
func (p policy) measure() ([2]blockSize, error) {
	var sizes [2]blockSize
	for i, half := range halves {
		size, err := p.checkLimits(half)
		if err != nil {
			return sizes, err
		}
		sizes[i] = size
	}
	return sizes, nil
}

// decode reads each half of p, which measure has let through.
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

func (p policy) decodeHalf(half Half) (*block, error) {
	field := blockField(p.source.Kind, half)
	object, err := decodeObject(p.block(half))
	if err != nil {
		return nil, &PolicyError{Source: p.source, Field: field, Err: err}
	}
	if object == nil {
		return nil, nil
	}
	b, err := readBlock(object, p.source, field, conditions())
	if err != nil {
		return nil, err
	}
	return &b, nil
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

// CheckPolicy returns why the blocks of the policy source cannot be used, a *LimitError
// or a *PolicyError, or nil, so that the policy's own status can say so whatever else
// is in its chain.
func CheckPolicy(source Source, blocks *gatewrightv1alpha1.DefaultsAndOverrides) error {
	p := policy{source: source, values: blocks}
	if _, err := p.measure(); err != nil {
		return err
	}
	_, err := p.decode()
	return err
}
