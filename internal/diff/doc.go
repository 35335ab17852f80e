// Package diff predicts what a change to the cluster's Gatewright inputs would do: for
// two offline.Sets, the cluster as it is and as it would be, it translates each Gateway
// (and the routes on it) that the change may reach, on both sides, with the one pipeline
// the controller runs (internal/translate), and reports the values, objects and
// conditions that change and the policies whose Programmed verdict changes. It reads no
// cluster: the command hands it the Sets.
package diff
