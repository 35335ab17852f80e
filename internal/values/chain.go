package values

import (
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/routes"
)

// Inputs are the objects the values of a Gateway or route are computed from: the
// blueprint of the Gateway's class and every policy in view. Policies that do not apply
// are ignored, so callers may pass all of them.
type Inputs struct {
	// ControllerNamespace holds the global GatewayClassConfigs.
	ControllerNamespace string
	Blueprint           *gatewrightv1alpha1.GatewayClassBlueprint
	// Schema is the blueprint's valuesSchema, compiled. When nil and the blueprint has
	// one, it is compiled for each computation; callers that compute often pass it.
	Schema              *Schema
	GatewayClassConfigs []gatewrightv1alpha1.GatewayClassConfig
	GatewayConfigs      []gatewrightv1alpha1.GatewayConfig
	// Shared, when not nil, is shared by the computations of one judgement: the
	// conditions of each namespace's policies then share a bound over all of them, as
	// well as each computation's own (SharedConditions). Nil for a computation that
	// stands alone, such as a Gateway's render.
	Shared *SharedConditions
}

// ParametersRefError says that a Gateway's spec.infrastructure.parametersRef cannot be
// used; Gateway API asks for Accepted=False/InvalidParameters.
type ParametersRefError struct {
	Gateway string
	Ref     gatewayv1.LocalParametersReference
	Reason  string
}

func (e *ParametersRefError) Error() string {
	return fmt.Sprintf("Gateway %s: spec.infrastructure.parametersRef %s %s: %s",
		e.Gateway, e.Ref.Kind, e.Ref.Name, e.Reason)
}

// gatewayChain returns levels 1 to 6 for gw.
func (in Inputs) gatewayChain(gw *gatewayv1.Gateway) ([]layer, error) {
	ns, class := gw.Namespace, string(gw.Spec.GatewayClassName)

	var blueprint []policy
	if bp := in.Blueprint; bp != nil {
		blueprint = []policy{newPolicy(gatewrightv1alpha1.KindGatewayClassBlueprint, bp.ObjectMeta, bp.Spec.Values)}
	}

	var global, providerNamespace, providerClass []policy
	for i := range in.GatewayClassConfigs {
		gcc := &in.GatewayClassConfigs[i]
		p := newPolicy(gatewrightv1alpha1.KindGatewayClassConfig, gcc.ObjectMeta, &gcc.Spec.DefaultsAndOverrides)
		switch {
		// A config in the controller namespace counts once: there it is global.
		case gcc.Namespace == in.ControllerNamespace && targets(gcc.Spec.TargetRefs, gatewayv1.GroupName, "GatewayClass", class):
			global = append(global, p)
		case gcc.Namespace == ns && targets(gcc.Spec.TargetRefs, "", "Namespace", ns):
			providerNamespace = append(providerNamespace, p)
		case gcc.Namespace == ns && targets(gcc.Spec.TargetRefs, gatewayv1.GroupName, "GatewayClass", class):
			providerClass = append(providerClass, p)
		}
	}

	byReference, err := in.referencedConfig(gw)
	if err != nil {
		return nil, err
	}
	var tenantNamespace, gateway []policy
	for i := range in.GatewayConfigs {
		gwc := &in.GatewayConfigs[i]
		if gwc.Namespace != ns {
			continue
		}
		p := newPolicy(gatewrightv1alpha1.KindGatewayConfig, gwc.ObjectMeta, &gwc.Spec.DefaultsAndOverrides)
		if targets(gwc.Spec.TargetRefs, "", "Namespace", ns) {
			tenantNamespace = append(tenantNamespace, p)
		}
		if gwc.Name == byReference || targets(gwc.Spec.TargetRefs, gatewayv1.GroupName, "Gateway", gw.Name) {
			gateway = append(gateway, p)
		}
	}

	return []layer{
		{level: LevelBlueprint, policies: blueprint},
		{level: LevelGlobalClass, policies: global},
		{level: LevelProviderNamespace, policies: providerNamespace},
		{level: LevelProviderClass, policies: providerClass},
		{level: LevelTenantNamespace, policies: tenantNamespace},
		{level: LevelGateway, policies: gateway},
	}, nil
}

// routeChain returns the levels a route adds to its Gateway's chain: for a route in
// another namespace than the Gateway, its provider's GatewayClassConfigs (levels 9 and
// 10), so that attaching elsewhere escapes none of them; then the tenant's levels 7 and 8.
func (in Inputs) routeChain(gw *gatewayv1.Gateway, route routes.Route) []layer {
	ns, class := route.GetNamespace(), string(gw.Spec.GatewayClassName)
	var providerNamespace, providerClass []policy
	if ns != gw.Namespace {
		for i := range in.GatewayClassConfigs {
			gcc := &in.GatewayClassConfigs[i]
			if gcc.Namespace != ns {
				continue
			}
			p := newPolicy(gatewrightv1alpha1.KindGatewayClassConfig, gcc.ObjectMeta, &gcc.Spec.DefaultsAndOverrides)
			// As in the Gateway's chain, a config takes part once, at its first match.
			switch {
			case ns == in.ControllerNamespace && targets(gcc.Spec.TargetRefs, gatewayv1.GroupName, "GatewayClass", class):
				// Global: level 2 already.
			case targets(gcc.Spec.TargetRefs, "", "Namespace", ns):
				providerNamespace = append(providerNamespace, p)
			case targets(gcc.Spec.TargetRefs, gatewayv1.GroupName, "GatewayClass", class):
				providerClass = append(providerClass, p)
			}
		}
	}

	var routeNamespace, routeItself []policy
	for i := range in.GatewayConfigs {
		gwc := &in.GatewayConfigs[i]
		if gwc.Namespace != ns {
			continue
		}
		p := newPolicy(gatewrightv1alpha1.KindGatewayConfig, gwc.ObjectMeta, &gwc.Spec.DefaultsAndOverrides)
		// In the Gateway's own namespace these configs are level 5 already.
		if ns != gw.Namespace && targets(gwc.Spec.TargetRefs, "", "Namespace", ns) {
			routeNamespace = append(routeNamespace, p)
		}
		if targets(gwc.Spec.TargetRefs, gatewayv1.GroupName, routes.KindOf(route), route.GetName()) {
			routeItself = append(routeItself, p)
		}
	}
	return []layer{
		{level: LevelRouteProviderNamespace, policies: providerNamespace},
		{level: LevelRouteProviderClass, policies: providerClass},
		{level: LevelRouteNamespace, policies: routeNamespace},
		{level: LevelRoute, policies: routeItself},
	}
}

// referencedConfig returns the name of the GatewayConfig that gw names in
// spec.infrastructure.parametersRef, or "" when it names none.
func (in Inputs) referencedConfig(gw *gatewayv1.Gateway) (string, error) {
	if gw.Spec.Infrastructure == nil || gw.Spec.Infrastructure.ParametersRef == nil {
		return "", nil
	}
	ref := *gw.Spec.Infrastructure.ParametersRef
	fail := func(reason string) (string, error) {
		return "", &ParametersRefError{Gateway: gw.Namespace + "/" + gw.Name, Ref: ref, Reason: reason}
	}
	if string(ref.Group) != gatewrightv1alpha1.GroupVersion.Group || string(ref.Kind) != gatewrightv1alpha1.KindGatewayConfig {
		return fail(fmt.Sprintf("only group %s, kind %s is supported", gatewrightv1alpha1.GroupVersion.Group, gatewrightv1alpha1.KindGatewayConfig))
	}
	for i := range in.GatewayConfigs {
		if gwc := &in.GatewayConfigs[i]; gwc.Namespace == gw.Namespace && gwc.Name == ref.Name {
			return ref.Name, nil
		}
	}
	return fail("not found in namespace " + gw.Namespace)
}

func targets(refs []gatewayv1.LocalPolicyTargetReference, group, kind, name string) bool {
	for _, ref := range refs {
		if string(ref.Group) == group && string(ref.Kind) == kind && string(ref.Name) == name {
			return true
		}
	}
	return false
}
