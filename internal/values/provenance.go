package values

// Leaf says where one leaf of the effective values came from.
type Leaf struct {
	// Path is the leaf's place in .Values, such as service.type or labels["app.kubernetes.io/name"].
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
	// Unset is true when the key is absent because a null in Origin removed it.
	Unset bool `json:"unset,omitempty"`
	Origin
}

func provenance(t *tree) []Leaf {
	var leaves []Leaf
	t.leaves(nil, func(path []string, e *entry) {
		leaf := Leaf{Path: renderPath(path), Unset: e.deleted, Origin: e.origin}
		switch {
		case e.deleted:
		case e.object != nil:
			leaf.Value = map[string]any{}
		default:
			leaf.Value = e.value
		}
		leaves = append(leaves, leaf)
	})
	return leaves
}
