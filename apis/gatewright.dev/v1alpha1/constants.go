package v1alpha1

import gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

// ControllerName is the spec.controllerName of the GatewayClasses Gatewright implements,
// and the controllerName it writes into policy and route status.
const ControllerName gatewayv1.GatewayController = "gatewright.dev/gateway-controller"

// IsGatewright tells whether a controllerName is Gatewright's: a GatewayClass's, or a
// status entry's (a route's parent status, a policy's ancestor status) that says who
// wrote it.
func IsGatewright(controllerName gatewayv1.GatewayController) bool {
	return controllerName == ControllerName
}

// Kinds, as they appear in references such as GatewayClass.spec.parametersRef and
// Gateway.spec.infrastructure.parametersRef.
const (
	KindGatewayClassBlueprint = "GatewayClassBlueprint"
	KindGatewayClassConfig    = "GatewayClassConfig"
	KindGatewayConfig         = "GatewayConfig"
)

// NamesGatewayConfig tells whether gw's spec.infrastructure.parametersRef names the
// GatewayConfig name (of gw's namespace).
func NamesGatewayConfig(gw *gatewayv1.Gateway, name string) bool {
	infra := gw.Spec.Infrastructure
	return infra != nil && infra.ParametersRef != nil && infra.ParametersRef.Name == name &&
		string(infra.ParametersRef.Group) == GroupVersion.Group && string(infra.ParametersRef.Kind) == KindGatewayConfig
}

// Condition types and reasons that Gateway API does not define.
const (
	// ConditionGatewayClassConfigAffected is set on the targets of GatewayClassConfigs.
	ConditionGatewayClassConfigAffected = "gatewright.dev/GatewayClassConfigAffected"
	// ConditionGatewayConfigAffected is set on the targets of GatewayConfigs.
	ConditionGatewayConfigAffected = "gatewright.dev/GatewayConfigAffected"

	// ReasonInvalidTemplates marks a blueprint whose templates, dependsOn graph or
	// valuesSchema cannot be used.
	ReasonInvalidTemplates = "InvalidTemplates"

	// ConditionLinted is True on a blueprint that gatewright lint --strict passes; when
	// False, with reason ReasonWarnings, its message lists the warnings. The blueprint is
	// used either way.
	ConditionLinted  = "gatewright.dev/Linted"
	ReasonNoWarnings = "NoWarnings"
	ReasonWarnings   = "Warnings"

	// ConditionRendered is set on blueprints and their GatewayClasses: False, with reason
	// ReasonRenderFailed, while Gateways fail to render or apply, naming the first few.
	ConditionRendered  = "gatewright.dev/Rendered"
	ReasonRendered     = "Rendered"
	ReasonRenderFailed = "RenderFailed"

	// ConditionRolloutHeld is True, with reason ReasonUnreadableAnnotation, on a blueprint
	// whose rollout-promote or rollout-abort annotation is not a revision number: its
	// rollout is held as if paused until the annotation is fixed or removed. It is absent
	// otherwise.
	ConditionRolloutHeld       = "gatewright.dev/RolloutHeld"
	ReasonUnreadableAnnotation = "UnreadableAnnotation"
)

// Labels Gatewright puts on every object it renders, besides Gateway API's
// gateway.networking.k8s.io/gateway-name and gateway-class-name.
const (
	LabelManagedBy        = "app.kubernetes.io/managed-by"
	ManagedByValue        = "gatewright"
	LabelGatewayNamespace = "gatewright.dev/gateway-namespace"
	// LabelHTTPRouteName and LabelHTTPRouteNamespace name the route an object was
	// rendered for, of any kind: they are older than the other kinds' templates, and
	// whatever tells a Gateway's objects from a route's reads them.
	LabelHTTPRouteName      = "gatewright.dev/httproute-name"
	LabelHTTPRouteNamespace = "gatewright.dev/httproute-namespace"
	// LabelRouteKind is the kind of that route, absent for an HTTPRoute: so that the
	// objects of a GRPCRoute and an HTTPRoute of the same name are told apart, and those
	// rendered before it existed stay their HTTPRoute's.
	LabelRouteKind = "gatewright.dev/route-kind"
	// LabelTemplate names the resource template an object came from, so that live
	// objects can be handed back to templates as .Resources.<template>.
	LabelTemplate = "gatewright.dev/template"
)
