// Package values computes the effective .Values of a Gateway or an HTTPRoute: it picks
// the policies that apply at each level of the GEP-713 precedence chain (docs/policies.md),
// merges their defaults and overrides as JSON Merge Patches, and records which policy
// set every leaf. It is plain Go: the controller and the offline commands feed it the
// same objects, read from the API server or from files.
package values
