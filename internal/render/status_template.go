package render

// HasStatus tells whether the blueprint has a status template: without one, nothing
// reports a Gateway's addresses.
func (b *Blueprint) HasStatus() bool { return b.hasStatus }
