package attach

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routes"
)

// BackendRef is one backendRef of a route rule and whether it resolves.
type BackendRef struct {
	// Rule is the index of the rule in spec.rules.
	Rule      int
	Namespace string
	Name      string
	Port      *gatewayv1.PortNumber
	// Reason is ResolvedRefs when the backendRef resolves, else why not; Message says
	// why in words, empty when it resolves.
	Reason  gatewayv1.RouteConditionReason
	Message string
}

// Resolved tells whether the backendRef names a Service the route may use and that
// exists.
func (b BackendRef) Resolved() bool { return b.Reason == gatewayv1.RouteReasonResolvedRefs }

// Resolution is the state of every backendRef of a route's rules, in spec order, and the
// route's ResolvedRefs reason and message.
type Resolution struct {
	BackendRefs []BackendRef
	Reason      gatewayv1.RouteConditionReason
	Message     string
}

// Resolved tells whether every backendRef resolves.
func (r Resolution) Resolved() bool { return r.Reason == gatewayv1.RouteReasonResolvedRefs }

// ServiceExists tells whether the Service namespace/name exists.
type ServiceExists func(namespace, name string) (bool, error)

// ResolveBackendRefs checks the backendRefs of route's rules (those of filters are not
// checked). Each goes through three checks in turn and takes the reason of the first it
// fails: its kind must be core Service (InvalidKind); a Service in another namespace
// needs a ReferenceGrant there (RefNotPermitted), checked before existence so that a
// route learns nothing of namespaces it may not refer to; the Service must exist
// (BackendNotFound). The route takes the reason of its first unresolved backendRef in
// spec order, and a message naming each unresolved one. grants may hold the
// ReferenceGrants of any namespaces; only those of a backendRef's namespace count.
func ResolveBackendRefs(route routes.Route, grants []gatewayv1.ReferenceGrant, exists ServiceExists) (Resolution, error) {
	out := Resolution{Reason: gatewayv1.RouteReasonResolvedRefs}
	var unresolved []string
	for i, ref := range routes.AllBackendRefs(route) {
		b, err := resolve(route, ref.BackendObjectReference, grants, exists)
		if err != nil {
			return Resolution{}, err
		}
		b.Rule = i
		out.BackendRefs = append(out.BackendRefs, b)
		if b.Resolved() {
			continue
		}
		if len(unresolved) == 0 {
			out.Reason = b.Reason
		}
		unresolved = append(unresolved, b.Message)
	}
	out.Message = strings.Join(unresolved, "; ")
	return out, nil
}

// BackendService is the Service that ref names, in route's namespace unless ref says
// otherwise; isService is false when ref names another kind.
func BackendService(route routes.Route, ref gatewayv1.BackendObjectReference) (key types.NamespacedName, isService bool) {
	key = types.NamespacedName{Namespace: route.GetNamespace(), Name: string(ref.Name)}
	if ref.Namespace != nil {
		key.Namespace = string(*ref.Namespace)
	}
	isService = (ref.Group == nil || *ref.Group == "") && (ref.Kind == nil || *ref.Kind == "Service")
	return key, isService
}

func resolve(route routes.Route, ref gatewayv1.BackendObjectReference, grants []gatewayv1.ReferenceGrant, exists ServiceExists) (BackendRef, error) {
	key, isService := BackendService(route, ref)
	b := BackendRef{Namespace: key.Namespace, Name: key.Name, Port: ref.Port, Reason: gatewayv1.RouteReasonResolvedRefs}
	fail := func(reason gatewayv1.RouteConditionReason, why string) (BackendRef, error) {
		b.Reason = reason
		b.Message = fmt.Sprintf("backendRef %s/%s %s", b.Namespace, b.Name, why)
		return b, nil
	}
	if !isService {
		return fail(gatewayv1.RouteReasonInvalidKind, fmt.Sprintf("is a %s, not a core Service", groupKind(ref)))
	}
	kind := routes.KindOf(route)
	from := Referrer{Group: gatewayv1.GroupName, Kind: kind, Namespace: route.GetNamespace()}
	if !ReferencePermitted(grants, from, Referent{Kind: "Service", Namespace: b.Namespace, Name: b.Name}) {
		return fail(gatewayv1.RouteReasonRefNotPermitted, fmt.Sprintf("is in another namespace, and no ReferenceGrant in %s lets %ss of %s refer to it", b.Namespace, kind, route.GetNamespace()))
	}
	found, err := exists(b.Namespace, b.Name)
	if err != nil {
		return BackendRef{}, err
	}
	if !found {
		return fail(gatewayv1.RouteReasonBackendNotFound, "names a Service that does not exist")
	}
	return b, nil
}

// groupKind is kind.group, or kind for the core group.
func groupKind(ref gatewayv1.BackendObjectReference) string {
	kind := "Service"
	if ref.Kind != nil {
		kind = string(*ref.Kind)
	}
	if ref.Group == nil || *ref.Group == "" {
		return kind
	}
	return kind + "." + string(*ref.Group)
}
