package controllers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// didYouMean reads " (did you mean web?)" when an object of the target's kind has a name
// close to the target's (a few edits): a Gateway or HTTPRoute of namespace, or a
// GatewayClass of Gatewright. "" when none is close or the names cannot be read.
func (r *PolicyReconciler) didYouMean(ctx context.Context, target gatewayv1.LocalPolicyTargetReference, namespace string) string {
	var names []string
	switch target.Kind {
	case "GatewayClass":
		var classes gatewayv1.GatewayClassList
		if err := r.List(ctx, &classes, client.UnsafeDisableDeepCopy); err != nil {
			return ""
		}
		for _, class := range classes.Items {
			if translate.IsGatewrightClass(&class) {
				names = append(names, class.Name)
			}
		}
	case "Gateway":
		var gateways gatewayv1.GatewayList
		if err := r.List(ctx, &gateways, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
			return ""
		}
		for _, gw := range gateways.Items {
			names = append(names, gw.Name)
		}
	case "HTTPRoute":
		var routes gatewayv1.HTTPRouteList
		if err := r.List(ctx, &routes, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
			return ""
		}
		for _, route := range routes.Items {
			names = append(names, route.Name)
		}
	}
	if near := values.Nearest(string(target.Name), string(target.Name), names); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}
