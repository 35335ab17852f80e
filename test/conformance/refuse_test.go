//go:build conformance

package conformance

import (
	"errors"
	"strings"
	"sync"

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
	r.mu.Lock()
	if r.refused == nil {
		r.refused = map[string]int{}
	}
	r.refused[topLevelTest(req.T.Name())]++
	r.mu.Unlock()
	req.T.Skipf("refused the HTTP request %s %s (Host %q): status checks only, no data plane", req.Method, req.URL.String(), req.Host)
	return nil, nil, nil // not reached: Skipf ends the test's goroutine
}

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
