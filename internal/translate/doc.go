// Package translate is Gatewright's one pipeline: from a snapshot of what a Gateway, or
// an HTTPRoute on it, is computed from (gathered once by internal/snapshot through any
// client.Reader) to its complete result: values with provenance, rendered objects, the
// conditions to report and the error, classified. The controllers, the offline commands
// (values, render), explain and diff all call it, so that each step (blueprint parse,
// valuesSchema, values, render, status) exists once. It does no I/O: what it reads of
// the cluster comes in the snapshot or through Live.
package translate
