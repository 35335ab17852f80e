package translate

import (
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/listeners"
)

// MaxSupportedFeatures bounds a GatewayClass's status.supportedFeatures, as the Gateway
// API does.
const MaxSupportedFeatures = 64

// defaultFeatures are what a class lists when its blueprint names none: what Gatewright
// itself does, whatever the blueprint, and the status-only conformance run passes
// (docs/conformance). What a blueprint's data plane does with traffic is not
// Gatewright's to claim; the blueprint claims it in serves.features.
var defaultFeatures = []features.FeatureName{
	features.SupportGateway,
	features.SupportGatewayInfrastructure,
	features.SupportGatewayPort8080,
	features.SupportHTTPRoute,
	features.SupportHTTPRouteParentRefPort,
	features.SupportReferenceGrant,
}

// Serves is what the data plane of a blueprint of spec implements, as the listener rules
// read it: its spec.serves, each field left out at its default.
func Serves(spec *gatewrightv1alpha1.GatewayClassBlueprintSpec) listeners.Serves {
	s := spec.Serves
	if s == nil {
		return listeners.Serves{}
	}
	serves := listeners.NewServes(s.Protocols, s.TLSModes, s.RouteKinds)
	if slices.Contains(s.Features, string(features.SupportTLSRouteModeMixed)) {
		serves = serves.WithMixedTLSModes()
	}
	if slices.Contains(s.Features, string(features.SupportListenerSet)) {
		serves = serves.WithListenerSets()
	}
	return serves
}

// SupportedFeatures are the Gateway API features (GEP-2162) a class whose blueprint has
// spec lists: its serves.features, else the default, sorted by name as the API asks,
// each once, and no more than the API takes.
func SupportedFeatures(spec *gatewrightv1alpha1.GatewayClassBlueprintSpec) []gatewayv1.SupportedFeature {
	var names []string
	if spec.Serves != nil && len(spec.Serves.Features) > 0 {
		names = slices.Clone(spec.Serves.Features)
	} else {
		for _, name := range defaultFeatures {
			names = append(names, string(name))
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	names = names[:min(len(names), MaxSupportedFeatures)]
	out := make([]gatewayv1.SupportedFeature, len(names))
	for i, name := range names {
		out[i] = gatewayv1.SupportedFeature{Name: gatewayv1.FeatureName(name)}
	}
	return out
}
