package values

import gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"

// SetValue is one leaf a policy's block sets, its path written as provenance and
// reports write it.
type SetValue struct {
	Path string `json:"path"`
	// Value is what the policy sets; nil for a null, which unsets.
	Value    any      `json:"value"`
	As       Half     `json:"as"`
	Strategy Strategy `json:"strategy"`
}

// ValuesOf lists the leaves the blocks of the policy source set, defaults first, each
// half by path; the error is CheckPolicy's.
func ValuesOf(source Source, blocks *gatewrightv1alpha1.DefaultsAndOverrides) ([]SetValue, error) {
	p := policy{source: source, values: blocks}
	if _, err := p.measure(); err != nil {
		return nil, err
	}
	decoded, err := p.decode()
	if err != nil {
		return nil, err
	}
	var out []SetValue
	for _, half := range halves {
		b := decoded.half(half)
		if b == nil {
			continue
		}
		eachLeaf(b.values, nil, func(path []string, value any) {
			out = append(out, SetValue{Path: renderPath(path), Value: value, As: half, Strategy: b.strategy})
		})
	}
	return out, nil
}
