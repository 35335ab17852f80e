package snapshot

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/scheme"
)

// The fixed cluster the Gatherer's tests read: class internet of blueprint envoy, whose
// currentRevision is 1 and whose revision 2 a rollout assigned Gateway team-a/assigned;
// a riding GatewayClassConfig each revision holds a copy of; a GatewayConfig in each
// tenant namespace; Gateway team-a/web with an HTTP listener that takes routes of every
// namespace and an HTTPS one whose certificate is broken; routes on it from team-a and
// team-b, and one on another Gateway.
const system = "gatewright-system"

func block(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }

func classTarget(name string) []gatewayv1.LocalPolicyTargetReference {
	return []gatewayv1.LocalPolicyTargetReference{{Group: gatewayv1.GroupName, Kind: "GatewayClass", Name: gatewayv1.ObjectName(name)}}
}

func namespaceTarget(name string) []gatewayv1.LocalPolicyTargetReference {
	return []gatewayv1.LocalPolicyTargetReference{{Kind: "Namespace", Name: gatewayv1.ObjectName(name)}}
}

// template is a blueprint spec that renders one ConfigMap for the Gateway, and one for
// each route when routes is true.
func template(name string, routes bool) gatewrightv1alpha1.GatewayClassBlueprintSpec {
	configMap := gatewrightv1alpha1.ResourceTemplate{Name: name, Template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\n"}
	spec := gatewrightv1alpha1.GatewayClassBlueprintSpec{
		Values:          &gatewrightv1alpha1.DefaultsAndOverrides{Default: block(`{"greeting":"hello"}`)},
		GatewayTemplate: gatewrightv1alpha1.GatewayTemplate{ResourceTemplates: []gatewrightv1alpha1.ResourceTemplate{configMap}},
	}
	if routes {
		spec.HTTPRouteTemplate = &gatewrightv1alpha1.RouteTemplate{ResourceTemplates: []gatewrightv1alpha1.ResourceTemplate{configMap}}
	}
	return spec
}

func liveBlueprint() *gatewrightv1alpha1.GatewayClassBlueprint {
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "envoy", UID: "uid-envoy", Generation: 3}, Spec: template("live", true)}
	bp.Status.CurrentRevision = 1
	return bp
}

// revisionOf is revision n of envoy, with template, holding the riding config "fleet"
// with greeting.
func revisionOf(n int64, name, greeting string) *gatewrightv1alpha1.GatewayClassBlueprintRevision {
	rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{Blueprint: "envoy", Revision: n, Spec: template(name, n == 1), ClassConfigsRideByDefault: true,
		ClassConfigs: []gatewrightv1alpha1.RevisionClassConfig{{Name: "fleet", Spec: gatewrightv1alpha1.GatewayClassConfigSpec{
			TargetRefs: classTarget("internet"), DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: block(`{"greeting":"` + greeting + `"}`)}}}}}
	rev.Name, rev.UID = revisions.Name("envoy", n), "uid-rev"
	rev.OwnerReferences = []metav1.OwnerReference{{Kind: gatewrightv1alpha1.KindGatewayClassBlueprint, Name: "envoy", UID: "uid-envoy", Controller: ptr.To(true)}}
	return rev
}

func gateway(name string) *gatewayv1.Gateway {
	all := gatewayv1.NamespacesFromAll
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "internet",
		Listeners: []gatewayv1.Listener{
			{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &all}}},
			{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: ptr.To(gatewayv1.Hostname("shop.example.com")),
				TLS: &gatewayv1.ListenerTLSConfig{CertificateRefs: []gatewayv1.SecretObjectReference{{Name: "cert"}}}},
		}}}
	return gw
}

func route(namespace, name, parent, service string) *gatewayv1.HTTPRoute {
	return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: gatewayv1.HTTPRouteSpec{
		CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: gatewayv1.ObjectName(parent), Namespace: ptr.To(gatewayv1.Namespace("team-a"))}}},
		Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
			BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(service), Port: ptr.To(gatewayv1.PortNumber(80))}}}}}},
	}}
}

// assignedRecord is part 0 of Gateway team-a/assigned's record: revision 2 of envoy.
func assignedRecord() *gatewrightv1alpha1.Rendering {
	rec := &gatewrightv1alpha1.Rendering{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gateway.assigned"}}
	rec.Owner = gatewrightv1alpha1.RenderingOwner{Kind: "Gateway", Name: "assigned", GatewayNamespace: "team-a", GatewayName: "assigned"}
	rec.TargetRevision, rec.TargetBlueprint = 2, "envoy"
	return rec
}

func cluster() []client.Object {
	class := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "internet"}, Spec: gatewayv1.GatewayClassSpec{
		ControllerName: gatewrightv1alpha1.ControllerName,
		ParametersRef:  &gatewayv1.ParametersReference{Group: gatewayv1.Group(gatewrightv1alpha1.GroupVersion.Group), Kind: gatewrightv1alpha1.KindGatewayClassBlueprint, Name: "envoy"},
	}}
	fleet := &gatewrightv1alpha1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: system, Name: "fleet"}, Spec: gatewrightv1alpha1.GatewayClassConfigSpec{
		TargetRefs: classTarget("internet"), DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: block(`{"greeting":"live"}`)}}}
	tenant := func(namespace string) *gatewrightv1alpha1.GatewayConfig {
		return &gatewrightv1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "tenant"}, Spec: gatewrightv1alpha1.GatewayConfigSpec{
			TargetRefs: namespaceTarget(namespace), DefaultsAndOverrides: gatewrightv1alpha1.DefaultsAndOverrides{Default: block(`{"tenant":"` + namespace + `"}`)}}}
	}
	service := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "shop"}}
	return []client.Object{
		class, liveBlueprint(), revisionOf(1, "one", "held-one"), revisionOf(2, "two", "held-two"), fleet, tenant("team-a"), tenant("team-b"), service,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-b"}},
		gateway("web"), gateway("assigned"), assignedRecord(),
		route("team-a", "shop", "web", "shop"), route("team-b", "cart", "web", "cart"), route("team-a", "elsewhere", "other", "shop"),
	}
}

// reader reads the fixed cluster, but what refuse refuses, by kind (the object or list
// read) and name ("" for a list): as the API server refuses a caller without a right,
// or a cache that has not seen an object yet.
func reader(t *testing.T, refuse func(obj any, name string) error) client.Reader {
	t.Helper()
	if refuse == nil {
		refuse = func(any, string) error { return nil }
	}
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(cluster()...).
		WithInterceptorFuncs(interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if err := refuse(obj, key.Name); err != nil {
					return err
				}
				return c.Get(ctx, key, obj, opts...)
			},
			List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				if err := refuse(list, ""); err != nil {
					return err
				}
				return c.List(ctx, list, opts...)
			},
		}).Build()
}

var (
	forbidden = apierrors.NewForbidden(schema.GroupResource{Resource: "things"}, "", nil)
	notFound  = apierrors.NewNotFound(schema.GroupResource{Resource: "things"}, "")
)

// internet reads the fixture's class through r.
func internet(t *testing.T, r client.Reader) *gatewayv1.GatewayClass {
	t.Helper()
	class := &gatewayv1.GatewayClass{}
	if err := r.Get(t.Context(), client.ObjectKey{Name: "internet"}, class); err != nil {
		t.Fatal(err)
	}
	return class
}

// secretsOK judges every certificate Secret good but "cert", which is broken.
func secretsOK(namespace, name string) (string, error) {
	if name == "cert" {
		return "is broken", nil
	}
	return "", nil
}
