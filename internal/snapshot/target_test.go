package snapshot

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
)

func TestDidYouMean(t *testing.T) {
	class := func(name string, controller gatewayv1.GatewayController) *gatewayv1.GatewayClass {
		return &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: gatewayv1.GatewayClassSpec{ControllerName: controller}}
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		class("internet", gatewrightv1alpha1.ControllerName),
		class("webclass", "example.com/other"),
		&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"}},
		&gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "shop"}},
	).Build()
	for _, tc := range []struct {
		name      string
		kind      gatewayv1.Kind
		target    gatewayv1.ObjectName
		namespace string
		want      string
	}{
		{"a class of Gatewright's a letter away is suggested", "GatewayClass", "internt", "", " (did you mean internet?)"},
		{"a class of another controller is not", "GatewayClass", "webclas", "", ""},
		{"a Gateway of the namespace is suggested", "Gateway", "wbe", "team", " (did you mean web?)"},
		{"a Gateway of another namespace is not", "Gateway", "wbe", "other", ""},
		{"a route of the namespace is suggested", "HTTPRoute", "shpo", "team", " (did you mean shop?)"},
		{"a Namespace target gets no suggestion", "Namespace", "tema", "team", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := gatewayv1.LocalPolicyTargetReference{Kind: tc.kind, Name: tc.target}
			if got := didYouMean(t.Context(), c, target, tc.namespace); got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}
