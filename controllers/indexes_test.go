package controllers

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// A route is indexed under each Gateway its parentRefs name, once, whatever the
// sectionName or port; other kinds of parent are not Gateways.
func TestRouteParents(t *testing.T) {
	route := &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart"},
		Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{
			{Name: "web"},
			{Name: "web", SectionName: ptr.To(gatewayv1.SectionName("https"))},
			{Name: "edge", Namespace: ptr.To(gatewayv1.Namespace("infra"))},
			{Name: "web", Namespace: ptr.To(gatewayv1.Namespace("infra")), Group: ptr.To(gatewayv1.Group(gatewayv1.GroupName)), Kind: ptr.To(gatewayv1.Kind("Gateway"))},
			{Name: "mesh", Group: ptr.To(gatewayv1.Group("")), Kind: ptr.To(gatewayv1.Kind("Service"))},
		}}},
	}
	want := []string{"shop/web", "infra/edge", "infra/web"}
	if got := routeParents(route); !reflect.DeepEqual(got, want) {
		t.Errorf("routeParents = %v, want %v", got, want)
	}
}
