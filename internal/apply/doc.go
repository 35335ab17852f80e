// Package apply puts rendered objects into the cluster for a Gateway or an HTTPRoute:
// server-side apply with field manager "gatewright", an inventory of what was applied,
// pruning of what is no longer rendered, readiness by kstatus, and clean-up.
//
// Gatewright never takes over an object it does not own: an existing object that is
// not labelled as rendered for the same Gateway (or HTTPRoute) is reported as a
// conflict, and nothing of the round is applied or pruned.
package apply
