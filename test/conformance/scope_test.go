//go:build conformance

package conformance

import (
	"sigs.k8s.io/gateway-api/conformance/tests"
	"sigs.k8s.io/gateway-api/pkg/features"
)

// inScope are the conformance tests whose assertions are about status, or that start with
// status assertions before sending HTTP requests or RPCs (refused, and the (sub)test
// skipped): those of the features the class under test lists in status.supportedFeatures,
// the route kinds GRPCRoute, TLSRoute, TCPRoute and UDPRoute among them. A test that then
// opens a TCP, TLS or UDP connection of its own is not here: the suite dials those itself,
// past any stand-in, and fails with no data plane. Every other test of the suite is
// skipped; docs/conformance/README.md says why.
var inScope = []string{
	"GRPCExactMethodMatching",
	"GRPCRouteHeaderMatching",
	"GRPCRouteListenerHostnameMatching",
	"GRPCRouteWeight",
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
	"HTTPRouteDisallowedKind",
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
	"ListenerSetAllowedNamespaceNone",
	"ListenerSetAllowedNamespaceSame",
	"ListenerSetAllowedNamespaceSelector",
	"ListenerSetAllowedRoutesNamespaces",
	"ListenerSetAllowedRoutesSupportedKinds",
	"ListenerSetDefaultNotAllowed",
	"ListenerSetDualParentRefIndependence",
	"ListenerSetHTTPRouting",
	"ListenerSetHostnameConflict",
	"ListenerSetProtocolConflict",
	"ListenerSetReferenceGrant",
	"ListenerSetRouteStatusScopedToParentRef",
	"TCPRouteInvalidBackendRefNonexistent",
	"TCPRouteInvalidCrossNamespaceBackendRef",
	"TCPRouteInvalidNonTCPListener",
	"TLSRouteInvalidNoMatchingListener",
	"TLSRouteInvalidNoMatchingListenerHostname",
	"TLSRouteInvalidReferenceGrant",
	"TLSRouteListenerMixedTerminationNotSupported",
	"TLSRouteListenerPassthroughSupportedKinds",
	"TLSRouteListenerTerminateSupportedKinds",
	"UDPRouteInvalidBackendRefNonexistent",
	"UDPRouteInvalidCrossNamespaceBackendRef",
	"UDPRouteNotAllowedByListeners",
}

// requestScope are the HTTPRoute tests about traffic that request mode adds
// (GATEWRIGHT_CONFORMANCE_MODE=requests): their requests are answered from the route
// table, as `gatewright explain request` answers. docs/conformance/README.md says which
// pass, and why the others of the suite are not here.
var requestScope = []string{
	"HTTPRoute303Redirect",
	"HTTPRoute307Redirect",
	"HTTPRoute308Redirect",
	"HTTPRouteBackendRequestHeaderModifier",
	"HTTPRouteCORS",
	"HTTPRouteCrossNamespace",
	"HTTPRouteExactPathMatching",
	"HTTPRouteHeaderMatching",
	"HTTPRouteHostnameIntersection",
	"HTTPRouteMatching",
	"HTTPRouteMatchingAcrossRoutes",
	"HTTPRouteMethodMatching",
	"HTTPRouteMultipleGateways",
	"HTTPRouteNamedRule",
	"HTTPRouteNoBackendRefs",
	"HTTPRoutePathMatchOrder",
	"HTTPRouteQueryParamMatching",
	"HTTPRouteRedirectHostAndStatus",
	"HTTPRouteRedirectPath",
	"HTTPRouteRedirectPort",
	"HTTPRouteRedirectPortAndScheme",
	"HTTPRouteRedirectScheme",
	"HTTPRouteRequestHeaderModifier",
	"HTTPRouteRequestHeaderModifierBackendWeights",
	"HTTPRouteResponseHeaderModifier",
	"HTTPRouteRewriteHost",
	"HTTPRouteRewritePath",
	"HTTPRouteSimpleSameNamespace",
	"HTTPRouteWeight",
}

// requestFeatures are the extended features whose tests request mode runs: features of
// the routing rules that Serve computes, not claims of the GatewayClass.
var requestFeatures = []features.FeatureName{
	features.SupportHTTPRouteQueryParamMatching, features.SupportHTTPRouteMethodMatching,
	features.SupportHTTPRouteResponseHeaderModification, features.SupportHTTPRouteBackendRequestHeaderModification,
	features.SupportHTTPRoutePortRedirect, features.SupportHTTPRouteSchemeRedirect, features.SupportHTTPRoutePathRedirect,
	features.SupportHTTPRouteHostRewrite, features.SupportHTTPRoutePathRewrite,
	features.SupportHTTPRoute303RedirectStatusCode, features.SupportHTTPRoute307RedirectStatusCode, features.SupportHTTPRoute308RedirectStatusCode,
	features.SupportHTTPRouteCORS, features.SupportHTTPRouteNamedRouteRule,
}

// outOfScope lists every test of the suite that is not in scope, for SkipTests; with
// requests, those of requestScope are in scope too.
func outOfScope(requests bool) []string {
	in := map[string]bool{}
	for _, name := range inScope {
		in[name] = true
	}
	if requests {
		for _, name := range requestScope {
			in[name] = true
		}
	}
	var out []string
	for _, test := range tests.ConformanceTests {
		if !in[test.ShortName] {
			out = append(out, test.ShortName)
		}
	}
	return out
}
