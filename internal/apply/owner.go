package apply

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/manifest"
)

// KindGateway and KindHTTPRoute are kinds of owners, as their Renderings record them;
// a route of another kind (GRPCRoute, TLSRoute, ...) is recorded by its kind too.
const (
	KindGateway   = "Gateway"
	KindHTTPRoute = "HTTPRoute"
)

// Owner is the Gateway, or the route of some kind on one parent Gateway, that objects
// are rendered and applied for.
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

// RouteOwner is the owner of the objects rendered for a route of kind on one parent
// Gateway. The objects of an HTTPRoute carry no route-kind label, as they did before
// the other kinds had templates.
func RouteOwner(kind string, route client.Object, gatewayNamespace, gatewayName string) Owner {
	labels := map[string]string{
		gatewayv1.GatewayNameLabelKey:              gatewayName,
		gatewrightv1alpha1.LabelGatewayNamespace:   gatewayNamespace,
		gatewrightv1alpha1.LabelHTTPRouteName:      route.GetName(),
		gatewrightv1alpha1.LabelHTTPRouteNamespace: route.GetNamespace(),
	}
	if kind != KindHTTPRoute {
		labels[gatewrightv1alpha1.LabelRouteKind] = kind
	}
	return Owner{Object: route, GVK: gatewayv1.SchemeGroupVersion.WithKind(kind), Labels: labels}
}

// OwnerOfRendering is the owner a Rendering names, for cleaning up after an owner that
// may be gone: only its identity is known.
func OwnerOfRendering(r *gatewrightv1alpha1.Rendering) Owner {
	stub := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Owner.Name, UID: r.Owner.UID}}
	if r.Owner.Kind != KindGateway {
		return RouteOwner(r.Owner.Kind, stub, r.Owner.GatewayNamespace, r.Owner.GatewayName)
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

// owns tells whether obj carries the owner's labels, and no route kind but the owner's:
// an HTTPRoute's objects have none, and are not those of a GRPCRoute of its name.
func (o Owner) owns(obj *unstructured.Unstructured) bool {
	if manifest.Label(obj, gatewrightv1alpha1.LabelManagedBy) != gatewrightv1alpha1.ManagedByValue ||
		manifest.Label(obj, gatewrightv1alpha1.LabelRouteKind) != o.Labels[gatewrightv1alpha1.LabelRouteKind] {
		return false
	}
	for k, v := range o.Labels {
		if manifest.Label(obj, k) != v {
			return false
		}
	}
	return true
}

// isRoute tells whether the owner is a route, of any kind.
func (o Owner) isRoute() bool { return o.GVK.Kind != KindGateway }
