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

// provenance lists the leaves of t and, among them by path, the dropped values.
func provenance(t *tree, dropped []droppedValue) []Leaf {
	var leaves []Leaf
	t.leaves(nil, func(path []string, e *entry) {
		for len(dropped) > 0 && lessPath(dropped[0].path, path) {
			leaves = append(leaves, droppedLeaf(dropped[0]))
			dropped = dropped[1:]
		}
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
	for _, d := range dropped {
		leaves = append(leaves, droppedLeaf(d))
	}
	return leaves
}

func droppedLeaf(d droppedValue) Leaf {
	by := d.by
	return Leaf{Path: renderPath(d.path), Value: d.value, Origin: d.origin, DroppedBy: &by}
}
