// Package values computes the effective .Values of a Gateway or an HTTPRoute: it picks
// the policies that apply at each level of the GEP-713 precedence chain (docs/policies.md),
// reads each default and override as a block (values, a strategy, a CEL condition),
// folds the blocks from the lowest to the highest, and records which block set every
// leaf and what each policy lost, to what. It is plain Go: the controller and the
// offline commands feed it the same objects, read from the API server or from files.
package values
