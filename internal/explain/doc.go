// Package explain computes what `gatewright explain` says, without a client, and writes
// it as the command's tables:
//
//   - where each value of a Gateway, or of a route on it, came from, from the values the
//     controller's code computes (internal/translate) or from a Rendering's record;
//   - where a policy lands: what became of each of its values in every context its
//     targets reach, grouped by outcome, and the Programmed verdict over them;
//   - which refused reads an explanation depends on;
//   - what a Gateway does with one HTTP request, from its route table.
//
// The callers gather the objects: internal/explain/live reads them from the cluster
// with the caller's rights, and the command and the conformance harness read a request's
// Gateways and route table. As internal/diff, this package decides and reads nothing.
package explain
