package render

import (
	"fmt"
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/listeners"
)

// servesField names spec.serves in warnings.
const servesField = "serves"

// servesWarnings are what in spec.serves promises less than its author likely meant: a
// protocol served whose listeners take no kind served (accepted, they take no routes), a
// kind served that no protocol served takes, and a feature Gateway API does not name,
// which no conformance run tests.
func servesWarnings(s *gatewrightv1alpha1.Serves) []Warning {
	if s == nil {
		return nil
	}
	serves := listeners.NewServes(s.Protocols, s.TLSModes, s.RouteKinds)
	var out []Warning
	warn := func(format string, args ...any) {
		out = append(out, Warning{Template: servesField, Message: fmt.Sprintf(format, args...)})
	}
	var served []gatewayv1.ProtocolType
	for _, protocol := range []gatewayv1.ProtocolType{gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType, gatewayv1.TLSProtocolType, gatewayv1.TCPProtocolType, gatewayv1.UDPProtocolType} {
		if !serves.Protocol(protocol) {
			continue
		}
		served = append(served, protocol)
		if !slices.ContainsFunc(listeners.ProtocolKinds(protocol), serves.RouteKind) {
			warn("protocols serves %s, but routeKinds lists no kind its listeners take (%v): they are accepted and take no routes", protocol, listeners.ProtocolKinds(protocol))
		}
	}
	for _, kind := range []gatewayv1.Kind{listeners.HTTPRouteKind, listeners.GRPCRouteKind, listeners.TLSRouteKind, listeners.TCPRouteKind, listeners.UDPRouteKind} {
		takes := func(protocol gatewayv1.ProtocolType) bool {
			return slices.Contains(listeners.ProtocolKinds(protocol), kind)
		}
		if serves.RouteKind(kind) && !slices.ContainsFunc(served, takes) {
			warn("routeKinds serves %s, but protocols serves no protocol whose listeners take it", kind)
		}
	}
	for _, name := range s.Features {
		if features.GetFeature(features.FeatureName(name)).Name == "" {
			warn("features lists %s, which Gateway API's features do not name: conformance runs test none of it", name)
		}
	}
	return out
}
