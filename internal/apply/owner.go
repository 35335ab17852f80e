package apply

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// KindGateway and KindHTTPRoute are the kinds of owners, as their Renderings record them.
const (
	KindGateway   = "Gateway"
	KindHTTPRoute = "HTTPRoute"
)

// Owner is the Gateway, or the HTTPRoute on one parent Gateway, that objects are
// rendered and applied for.
type Owner struct {
	Object client.Object
	GVK    schema.GroupVersionKind
	// Labels mark an object as rendered for this owner; the renderer stamps them.
	Labels map[string]string
}

// GatewayOwner is the owner of the objects rendered for a Gateway.
func GatewayOwner(gw client.Object) Owner {
	return Owner{
		Object: gw,
		GVK:    gatewayv1.SchemeGroupVersion.WithKind(KindGateway),
		Labels: map[string]string{
			gatewayv1.GatewayNameLabelKey:            gw.GetName(),
			gatewrightv1alpha1.LabelGatewayNamespace: gw.GetNamespace(),
		},
	}
}

// RouteOwner is the owner of the objects rendered for an HTTPRoute on one parent Gateway.
func RouteOwner(route client.Object, gatewayNamespace, gatewayName string) Owner {
	return Owner{
		Object: route,
		GVK:    gatewayv1.SchemeGroupVersion.WithKind(KindHTTPRoute),
		Labels: map[string]string{
			gatewayv1.GatewayNameLabelKey:              gatewayName,
			gatewrightv1alpha1.LabelGatewayNamespace:   gatewayNamespace,
			gatewrightv1alpha1.LabelHTTPRouteName:      route.GetName(),
			gatewrightv1alpha1.LabelHTTPRouteNamespace: route.GetNamespace(),
		},
	}
}

// OwnerOfRendering is the owner a Rendering names, for cleaning up after an owner that
// may be gone: only its identity is known.
func OwnerOfRendering(r *gatewrightv1alpha1.Rendering) Owner {
	stub := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Owner.Name, UID: r.Owner.UID}}
	if r.Owner.Kind == KindHTTPRoute {
		return RouteOwner(stub, r.Owner.GatewayNamespace, r.Owner.GatewayName)
	}
	return GatewayOwner(stub)
}

func (o Owner) String() string {
	return o.GVK.Kind + " " + o.Object.GetNamespace() + "/" + o.Object.GetName()
}

// GatewayKey is the owner's Gateway as "namespace/name".
func (o Owner) GatewayKey() string {
	return o.Labels[gatewrightv1alpha1.LabelGatewayNamespace] + "/" + o.Labels[gatewayv1.GatewayNameLabelKey]
}

// owns tells whether obj carries the owner's labels.
func (o Owner) owns(obj client.Object) bool {
	labels := obj.GetLabels()
	if labels[gatewrightv1alpha1.LabelManagedBy] != gatewrightv1alpha1.ManagedByValue {
		return false
	}
	for k, v := range o.Labels {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// isRoute tells whether the owner is an HTTPRoute.
func (o Owner) isRoute() bool { return o.GVK.Kind == KindHTTPRoute }
