// Package live reads from the cluster, with the caller's rights, what internal/explain
// computes from, as the controller reads it, and hands it plain objects: the snapshot of
// a Gateway's values, a Rendering's record, the contexts a policy's targets reach. A
// read the caller may not make either falls back (to the record, to the live spec of a
// blueprint) or is noted in an explain.DeniedReads, so that the command can say what the
// answer could not see.
package live
