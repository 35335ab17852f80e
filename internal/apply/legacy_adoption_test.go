package apply

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
)

// TestPredatesRenderings: only an owner created before the controller wrote the first
// Rendering of its kind in its namespace may hold a legacy inventory.
func TestPredatesRenderings(t *testing.T) {
	upgrade := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	rendering := func(namespace, name, kind string, uid string) *gatewrightv1alpha1.Rendering {
		return &gatewrightv1alpha1.Rendering{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, CreationTimestamp: metav1.NewTime(upgrade)},
			Owner:      gatewrightv1alpha1.RenderingOwner{Kind: kind, Name: name, UID: k8stypes.UID(uid)},
		}
	}
	gateway := func(created time.Time) *gatewayv1.Gateway {
		return &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "web-uid", CreationTimestamp: metav1.NewTime(created)}}
	}
	for _, tc := range []struct {
		name       string
		gw         *gatewayv1.Gateway
		renderings []client.Object
		want       bool
	}{
		{"a Gateway created before another Gateway's Rendering is old", gateway(upgrade.Add(-time.Hour)), []client.Object{rendering("team-a", "api", "Gateway", "api-uid")}, true},
		{"a Gateway created after another Gateway's Rendering is new", gateway(upgrade.Add(time.Hour)), []client.Object{rendering("team-a", "api", "Gateway", "api-uid")}, false},
		{"a Gateway created in the same second as a Rendering is new", gateway(upgrade), []client.Object{rendering("team-a", "api", "Gateway", "api-uid")}, false},
		{"a Gateway's own Rendering says nothing of its age", gateway(upgrade.Add(time.Hour)), []client.Object{rendering("team-a", "web", "Gateway", "web-uid")}, true},
		{"a route's Rendering says nothing of a Gateway's age", gateway(upgrade.Add(time.Hour)), []client.Object{rendering("team-a", "shop", "HTTPRoute", "shop-uid")}, true},
		{"another namespace's Renderings say nothing of its age", gateway(upgrade.Add(time.Hour)), []client.Object{rendering("team-b", "api", "Gateway", "api-uid")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &LegacyAdopter{Client: fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(tc.renderings...).Build()}
			got, err := a.predatesRenderings(context.Background(), tc.gw, "Gateway")
			if err != nil || got != tc.want {
				t.Errorf("got %v (%v), want %v", got, err, tc.want)
			}
		})
	}
}

// TestRenderableKinds: a legacy entry is read only if the blueprint's templates for its
// owner name its kind and group, or the blueprint declares it cluster-scoped.
func TestRenderableKinds(t *testing.T) {
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{Spec: gatewrightv1alpha1.GatewayClassBlueprintSpec{
		ClusterScopedKinds: []gatewrightv1alpha1.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}},
		GatewayTemplate: gatewrightv1alpha1.GatewayTemplate{ResourceTemplates: []gatewrightv1alpha1.ResourceTemplate{
			{Name: "config", Template: "apiVersion: v1\nkind: ConfigMap\n---\n- apiVersion: \"apps/v1\"\n  kind: Deployment\n"},
		}},
		HTTPRouteTemplate: &gatewrightv1alpha1.RouteTemplate{ResourceTemplates: []gatewrightv1alpha1.ResourceTemplate{
			{Name: "route", Template: "apiVersion: networking.k8s.io/v1\nkind: Ingress\n"},
		}},
	}}
	for _, tc := range []struct {
		name      string
		bp        *gatewrightv1alpha1.GatewayClassBlueprint
		ownerKind string
		gk        schema.GroupKind
		want      bool
	}{
		{"a core kind a Gateway template names", bp, "Gateway", schema.GroupKind{Kind: "ConfigMap"}, true},
		{"a kind of a group a Gateway template names, in a list item", bp, "Gateway", schema.GroupKind{Group: "apps", Kind: "Deployment"}, true},
		{"a kind no template names", bp, "Gateway", schema.GroupKind{Kind: "Secret"}, false},
		{"a named kind in a group no template names", bp, "Gateway", schema.GroupKind{Group: "example.com", Kind: "ConfigMap"}, false},
		{"a kind only the route templates name, for a Gateway", bp, "Gateway", schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}, false},
		{"a kind the route templates name, for a route", bp, "HTTPRoute", schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}, true},
		{"a declared cluster-scoped kind", bp, "HTTPRoute", schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}, true},
		{"any kind without a blueprint", nil, "Gateway", schema.GroupKind{Kind: "ConfigMap"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := renderableKinds(tc.bp, tc.ownerKind)(tc.gk); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
