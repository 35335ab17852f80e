// Package conformance runs the official Gateway API conformance suite, status checks
// only, against Gatewright on a local control plane: `make conformance`.
//
// The suite itself is behind the build tag `conformance` so that `go test ./...` neither
// compiles nor runs it. The untagged files here (the GatewayClass under test and the
// kubelet stand-in) are plain code that `go vet ./...` checks.
package conformance
