// Package rollout is the staged rollout of a blueprint revision, as plain functions: the
// order of a class's Gateways, the sizes of the waves, whether a Gateway is healthy on a
// revision, and the state machine that assigns waves, gates them on health and rolls a
// failed wave back. It reads no cluster and writes nothing: the controller observes,
// calls Step, writes the status it returns, then the assignments.
package rollout
