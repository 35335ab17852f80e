// Package revisions holds what identifies a blueprint revision and a render: the hashes
// of a blueprint's spec and of effective values, and the names and labels of revision
// objects. It is plain Go, shared by the blueprint reconciler and internal/apply.
package revisions
