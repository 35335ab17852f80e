package snapshot

import (
	"slices"
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/scheme"
)

// listenerSetReader reads the fixed cluster where envoy claims ListenerSet, Gateway
// team-a/web allows those of every namespace, team-b's ListenerSet front is attached to
// it, and route team-b/front names that ListenerSet, not the Gateway; team-b's ListenerSet
// stray names Gateway team-a/assigned, which allows none, and route team-b/lost names it.
func listenerSetReader(t *testing.T) client.Reader {
	t.Helper()
	objects := cluster()
	claims := &gatewrightv1alpha1.Serves{Features: []string{"Gateway", "HTTPRoute", "ListenerSet"}}
	for _, obj := range objects {
		switch o := obj.(type) {
		case *gatewrightv1alpha1.GatewayClassBlueprintRevision:
			o.Spec.Serves = claims
		case *gatewrightv1alpha1.GatewayClassBlueprint:
			o.Spec.Serves = claims
		case *gatewayv1.Gateway:
			if o.Name == "web" {
				all := gatewayv1.NamespacesFromAll
				o.Spec.AllowedListeners = &gatewayv1.AllowedListeners{Namespaces: &gatewayv1.ListenerNamespaces{From: &all}}
			}
		}
	}
	for _, manifest := range []string{`
metadata: {namespace: team-b, name: front}
spec:
  parentRef: {name: web, namespace: team-a}
  listeners: [{name: front, protocol: HTTP, port: 8080}]`, `
metadata: {namespace: team-b, name: stray}
spec:
  parentRef: {name: assigned, namespace: team-a}
  listeners: [{name: stray, protocol: HTTP, port: 8081}]`} {
		ls := &gatewayv1.ListenerSet{}
		if err := yaml.UnmarshalStrict([]byte(manifest), ls); err != nil {
			t.Fatal(err)
		}
		objects = append(objects, ls)
	}
	onListenerSet := func(name, listenerSet string) *gatewayv1.HTTPRoute {
		r := route("team-b", name, listenerSet, "cart")
		r.Spec.ParentRefs = []gatewayv1.ParentReference{{Group: ptr.To(gatewayv1.Group(gatewayv1.GroupName)), Kind: ptr.To(gatewayv1.Kind("ListenerSet")), Name: gatewayv1.ObjectName(listenerSet)}}
		return r
	}
	objects = append(objects, onListenerSet("front", "front"), onListenerSet("lost", "stray"))
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objects...).Build()
}

func TestAPolicyReachesTheRoutesOnAGatewaysListenerSets(t *testing.T) {
	tests := []struct {
		name      string
		namespace string
		target    gatewayv1.LocalPolicyTargetReference
		want      []string
	}{
		{"a class policy reaches the route on the ListenerSet attached to the Gateway, and not the one on a refused ListenerSet", system, classTarget("internet")[0],
			[]string{"Gateway team-a/assigned", "Gateway team-a/web", "HTTPRoute team-a/shop on Gateway team-a/web", "HTTPRoute team-b/cart on Gateway team-a/web", "HTTPRoute team-b/front on Gateway team-a/web"}},
		{"a namespace policy of the route's namespace reaches it on the Gateway elsewhere", "team-b", namespaceTarget("team-b")[0],
			[]string{"HTTPRoute team-b/cart on Gateway team-a/web", "HTTPRoute team-b/front on Gateway team-a/web"}},
		{"a policy on the route reaches it on the ListenerSet's Gateway", "team-b", gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Name: "front"},
			[]string{"HTTPRoute team-b/front on Gateway team-a/web"}},
		{"a policy on a route whose ListenerSet is refused reaches nothing", "team-b", gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Name: "lost"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &Gatherer{Reader: listenerSetReader(t), ControllerNamespace: system, SecretCheck: secretsOK, ServesListenerSets: true}
			reached, err := g.Policy(t.Context(), tt.namespace, tt.target, &render.Cache{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range reached {
				got = append(got, c.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
