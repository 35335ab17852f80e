package routing

import (
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// A route's spec is measured once per generation: a new generation is measured again,
// and a route without a UID (from a file) every time.
func TestSpecSizeIsMeasuredOncePerGeneration(t *testing.T) {
	route := &gatewayv1.HTTPRoute{}
	route.UID, route.Generation = "spec-size-test", 1
	first := specSize(route)
	route.Spec.Hostnames = []gatewayv1.Hostname{"a.example.com"}
	if got := specSize(route); got != first {
		t.Errorf("the same generation measured again: %d, then %d", first, got)
	}
	route.Generation = 2
	if got := specSize(route); got <= first {
		t.Errorf("generation 2, with a hostname more, measures %d, not more than %d", got, first)
	}
	route.UID = ""
	route.Spec.Hostnames = append(route.Spec.Hostnames, "b.example.com")
	if got, again := specSize(route), specSize(&gatewayv1.HTTPRoute{Spec: route.Spec}); got != again {
		t.Errorf("a route without a UID measures %d, its spec alone %d", got, again)
	}
}
