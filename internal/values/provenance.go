package values

// Leaf says where one leaf of the effective values came from, or where a value that
// is not among them went.
type Leaf struct {
	// Path is the leaf's place in .Values, such as service.type or labels["app.kubernetes.io/name"].
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
	// Unset is true when the key is absent because a null in Origin removed it.
	Unset bool `json:"unset,omitempty"`
	Origin
	// DroppedBy is set when the value is not in the effective values because a block
	// took or left values whole (Atomic, or a key under Merge): the override that
	// replaced it, or, for a default that gave way, the values below it.
	DroppedBy *Origin `json:"droppedBy,omitempty"`
}

// provenance lists the leaves of t, then places among them, by path, the dropped values.
func provenance(t *tree, dropped []droppedValue) []Leaf {
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
	if len(dropped) == 0 {
		return leaves
	}
	// Both lists are in path order, and no dropped value shares a path with a leaf.
	merged := make([]Leaf, 0, len(leaves)+len(dropped))
	paths := make([][]string, 0, len(leaves))
	t.leaves(nil, func(path []string, _ *entry) { paths = append(paths, append([]string(nil), path...)) })
	i := 0
	for _, d := range dropped {
		for ; i < len(leaves) && lessPath(paths[i], d.path); i++ {
			merged = append(merged, leaves[i])
		}
		by := d.by
		merged = append(merged, Leaf{Path: renderPath(d.path), Value: d.value, Origin: d.origin, DroppedBy: &by})
	}
	return append(merged, leaves[i:]...)
}
