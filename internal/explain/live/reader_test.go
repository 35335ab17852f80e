package live

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
)

// explain for a route picks the parent Gateway whose values to show: the only one of a
// Gatewright class, or the one --gateway names, and says why when it cannot choose.
func TestExplainPicksTheRoutesGatewrightParent(t *testing.T) {
	class := func(name string, controller gatewayv1.GatewayController) *gatewayv1.GatewayClass {
		return &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: gatewayv1.GatewayClassSpec{ControllerName: controller}}
	}
	gateway := func(namespace, name, class string) *gatewayv1.Gateway {
		return &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: gatewayv1.ObjectName(class)}}
	}
	reader := Reader{Client: fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		class("internet", gatewrightv1alpha1.ControllerName),
		class("mesh", "example.com/other"),
		gateway("team", "web", "internet"),
		gateway("edge", "web", "internet"),
		gateway("team", "sidecar", "mesh"),
		gateway("team", "orphan", "gone"),
	).Build()}
	route := func(parents ...gatewayv1.ParentReference) *gatewayv1.HTTPRoute {
		return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "shop"},
			Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: parents}}}
	}
	edge := gatewayv1.Namespace("edge")
	tests := []struct {
		name    string
		route   *gatewayv1.HTTPRoute
		parent  string
		want    client.ObjectKey
		wantErr string
	}{
		{name: "the only Gatewright parent, next to others", route: route(gatewayv1.ParentReference{Name: "sidecar"}, gatewayv1.ParentReference{Name: "orphan"}, gatewayv1.ParentReference{Name: "web"}),
			want: client.ObjectKey{Namespace: "team", Name: "web"}},
		{name: "--gateway in the route's namespace", route: route(gatewayv1.ParentReference{Name: "web"}, gatewayv1.ParentReference{Name: "web", Namespace: &edge}), parent: "web",
			want: client.ObjectKey{Namespace: "team", Name: "web"}},
		{name: "--gateway in another namespace", route: route(gatewayv1.ParentReference{Name: "web"}, gatewayv1.ParentReference{Name: "web", Namespace: &edge}), parent: "edge/web",
			want: client.ObjectKey{Namespace: "edge", Name: "web"}},
		{name: "two Gatewright parents", route: route(gatewayv1.ParentReference{Name: "web"}, gatewayv1.ParentReference{Name: "web", Namespace: &edge}),
			wantErr: "HTTPRoute team/shop has several Gatewright parents ([team/web edge/web]): choose one with --gateway"},
		{name: "--gateway naming a parent of another controller", route: route(gatewayv1.ParentReference{Name: "sidecar"}, gatewayv1.ParentReference{Name: "web"}), parent: "sidecar",
			wantErr: "HTTPRoute team/shop has no parentRef to a Gatewright Gateway sidecar"},
		{name: "no Gatewright parent", route: route(gatewayv1.ParentReference{Name: "sidecar"}, gatewayv1.ParentReference{Name: "missing"}),
			wantErr: "HTTPRoute team/shop has no parent Gateway of a Gatewright GatewayClass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw, err := reader.parentGateway(t.Context(), tt.route, tt.parent)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := client.ObjectKeyFromObject(gw); got != tt.want {
				t.Fatalf("chose %s, want %s", got, tt.want)
			}
		})
	}
	t.Run("a missing object is named with its kind", func(t *testing.T) {
		_, err := reader.valuesOfGateway(t.Context(), "team", "nowhere")
		if want := "reading Gateway team/nowhere: "; !apierrors.IsNotFound(err) || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("got %v, want a not-found error starting %q", err, want)
		}
	})
}
