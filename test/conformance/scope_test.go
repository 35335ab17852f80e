//go:build conformance

package conformance

import (
	"sigs.k8s.io/gateway-api/conformance/tests"
)

// inScope are the conformance tests whose assertions are about status, or that start with
// status assertions before sending traffic (the traffic part is refused and skipped):
// those of the core features (Gateway, HTTPRoute, ReferenceGrant) and of the extended
// features Gatewright's GatewayClasses list in status.supportedFeatures. Every other
// test of the suite is skipped; docs/conformance/README.md says why.
var inScope = []string{
	"GatewayClassObservedGenerationBump",
	"GatewayInfrastructureMetadata",
	"GatewayInvalidParametersRef",
	"GatewayInvalidRouteKind",
	"GatewayInvalidTLSConfiguration",
	"GatewayListenerUnsupportedProtocol",
	"GatewayModifyListeners",
	"GatewayObservedGenerationBump",
	"GatewaySecretInvalidReferenceGrant",
	"GatewaySecretMissingReferenceGrant",
	"GatewaySecretReferenceGrantAllInNamespace",
	"GatewaySecretReferenceGrantSpecific",
	"GatewayWithAttachedRoutes",
	"GatewayWithAttachedRoutesWithPort8080",
	"HTTPRouteInvalidBackendRefUnknownKind",
	"HTTPRouteInvalidCrossNamespaceBackendRef",
	"HTTPRouteInvalidCrossNamespaceParentRef",
	"HTTPRouteInvalidNonExistentBackendRef",
	"HTTPRouteInvalidParentRefNotMatchingSectionName",
	"HTTPRouteInvalidParentRefSectionNameNotMatchingPort",
	"HTTPRouteInvalidReferenceGrant",
	"HTTPRouteListenerHostnameMatching",
	"HTTPRouteListenerPortMatching",
	"HTTPRouteObservedGenerationBump",
	"HTTPRoutePartiallyInvalidViaInvalidReferenceGrant",
	"HTTPRouteReferenceGrant",
}

// outOfScope lists every test of the suite that is not in scope, for SkipTests.
func outOfScope() []string {
	in := map[string]bool{}
	for _, name := range inScope {
		in[name] = true
	}
	var out []string
	for _, test := range tests.ConformanceTests {
		if !in[test.ShortName] {
			out = append(out, test.ShortName)
		}
	}
	return out
}
