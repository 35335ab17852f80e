package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// didYouMean reads " (did you mean web?)" when an object of the target's kind has a name
// close to the target's (a few edits): a Gateway or HTTPRoute of namespace, or a
// GatewayClass of Gatewright. "" when none is close or the names cannot be read.
func (r *PolicyReconciler) didYouMean(ctx context.Context, target gatewayv1.LocalPolicyTargetReference, namespace string) string {
	var list client.ObjectList
	opts := []client.ListOption{client.UnsafeDisableDeepCopy}
	switch target.Kind {
	case "GatewayClass":
		list = &gatewayv1.GatewayClassList{}
	case "Gateway":
		list, opts = &gatewayv1.GatewayList{}, append(opts, client.InNamespace(namespace))
	case "HTTPRoute":
		list, opts = &gatewayv1.HTTPRouteList{}, append(opts, client.InNamespace(namespace))
	default:
		return ""
	}
	if err := r.List(ctx, list, opts...); err != nil {
		return ""
	}
	var names []string
	_ = meta.EachListItem(list, func(item runtime.Object) error { // the func never fails
		if class, isClass := item.(*gatewayv1.GatewayClass); !isClass || translate.IsGatewrightClass(class) {
			names = append(names, item.(client.Object).GetName())
		}
		return nil
	})
	if near := values.Nearest(string(target.Name), string(target.Name), names); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}
