//go:build conformance

package conformance

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/gateway-api/conformance/utils/grpc"
	"sigs.k8s.io/gateway-api/conformance/utils/roundtripper"
)

// refusingRoundTripper stands in for the suite's HTTP client. Gatewright renders no data
// plane here, so every request the suite would send is recorded and refused, and the
// (sub)test that sent it is skipped. Tests check status before traffic, so a test that
// reaches a request has passed the status checks of that (sub)test.
type refusingRoundTripper struct {
	mu      sync.Mutex
	refused map[string]int // by top-level conformance test
}

func (r *refusingRoundTripper) CaptureRoundTrip(req roundtripper.Request) (*roundtripper.CapturedRequest, *roundtripper.CapturedResponse, error) {
	if req.T == nil {
		return nil, nil, errors.New("gatewright conformance: HTTP requests to the data plane are refused (status checks only)")
	}
	r.refuse(req.T, fmt.Sprintf("the HTTP request %s %s (Host %q)", req.Method, req.URL.String(), req.Host))
	return nil, nil, nil // not reached: refuse ends the test's goroutine
}

// refuse records a request of t and skips t.
func (r *refusingRoundTripper) refuse(t *testing.T, what string) {
	r.mu.Lock()
	if r.refused == nil {
		r.refused = map[string]int{}
	}
	r.refused[topLevelTest(t.Name())]++
	r.mu.Unlock()
	t.Skipf("refused %s: status checks only, no data plane", what)
}

// refusingGRPCClient stands in for the suite's gRPC client as refusingRoundTripper does
// for its HTTP client, counting in the same record: the GRPCRoute tests check their
// routes' status before they send an RPC.
type refusingGRPCClient struct{ *refusingRoundTripper }

func (c refusingGRPCClient) SendRPC(t *testing.T, address string, expected grpc.ExpectedResponse, _ time.Duration) (*grpc.Response, error) {
	if t == nil {
		return nil, errors.New("gatewright conformance: RPCs to the data plane are refused (status checks only)")
	}
	c.refuse(t, fmt.Sprintf("an RPC to %s (%s)", address, expected.TestCaseName))
	return nil, nil // not reached: refuse ends the test's goroutine
}

func (refusingGRPCClient) Close() {}

// Refused is how many requests each test tried to send.
func (r *refusingRoundTripper) Refused() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.refused))
	for k, v := range r.refused {
		out[k] = v
	}
	return out
}

// topLevelTest is the conformance test's short name in a Go test name such as
// TestConformance/HTTPRouteReferenceGrant/some-subtest.
func topLevelTest(name string) string {
	parts := strings.Split(name, "/")
	if len(parts) < 2 {
		return name
	}
	return parts[1]
}
