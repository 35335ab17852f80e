package offline_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/scheme"
)

// tenantReader answers as the API server answers a tenant of team-a: nothing may be
// listed cluster-wide but the cluster-scoped kinds it may read, and within team-a
// everything but Secrets.
func tenantReader(objs ...client.Object) client.Reader {
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			var o client.ListOptions
			o.ApplyOptions(opts)
			switch list.(type) {
			case *gatewrightv1alpha1.GatewayClassBlueprintList, *gatewayv1.GatewayClassList:
				return c.List(ctx, list, opts...)
			case *corev1.SecretList:
				return apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", nil)
			}
			if o.Namespace != "team-a" {
				return apierrors.NewForbidden(schema.GroupResource{Resource: "things"}, "", nil)
			}
			return c.List(ctx, list, opts...)
		},
	}).Build()
}

func TestFromClusterReadsWhatTheCallerMay(t *testing.T) {
	tls := gatewayv1.HTTPSProtocolType
	gw := func(namespace, name string) *gatewayv1.Gateway {
		return &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: gatewayv1.GatewaySpec{
			GatewayClassName: "internet",
			Listeners: []gatewayv1.Listener{{Name: "https", Port: 443, Protocol: tls, TLS: &gatewayv1.ListenerTLSConfig{
				CertificateRefs: []gatewayv1.SecretObjectReference{{Name: "cert"}}}}},
		}}
	}
	r := tenantReader(gw("team-a", "web"), gw("team-b", "other"),
		&gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "internet"}, Spec: gatewayv1.GatewayClassSpec{ControllerName: gatewrightv1alpha1.ControllerName}},
		&gatewrightv1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "theirs"}})

	set, unread, err := offline.FromCluster(context.Background(), r, offline.ClusterOptions{Namespaces: []string{"team-a", "team-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Gateways) != 1 || set.Gateways[0].Name != "web" || len(set.GatewayClasses) != 1 {
		t.Errorf("read %d Gateways and %d classes, want team-a's web and the class", len(set.Gateways), len(set.GatewayClasses))
	}
	if len(set.GatewayConfigs) != 0 {
		t.Errorf("read another namespace's GatewayConfigs: %v", set.GatewayConfigs)
	}
	if !set.SecretsUnread {
		t.Error("Secrets that could not be read are not said to be unread")
	}
	for _, want := range []string{
		"Namespaces (cluster-scoped): missing permission list things",
		"Secrets in namespace team-a: missing permission list secrets",
		"Gateways in all namespaces: missing permission list things (read in namespace team-a only)",
	} {
		if !slices.ContainsFunc(unread, func(u offline.Unread) bool { return strings.HasPrefix(u.String(), want) }) {
			t.Errorf("no unread %q in %q", want, unread)
		}
	}
}

func TestFromClusterReadsEveryRouteKind(t *testing.T) {
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: "team-a", Name: name} }
	r := tenantReader(&gatewayv1.HTTPRoute{ObjectMeta: meta("web")}, &gatewayv1.GRPCRoute{ObjectMeta: meta("greeter")},
		&gatewayv1.TLSRoute{ObjectMeta: meta("secure")}, &gatewayv1.TCPRoute{ObjectMeta: meta("db")}, &gatewayv1.UDPRoute{ObjectMeta: meta("dns")},
		&gatewayv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "theirs"}})
	set, unread, err := offline.FromCluster(context.Background(), r, offline.ClusterOptions{Namespaces: []string{"team-a"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, route := range set.OtherRoutes {
		got = append(got, routes.KindOf(route)+"/"+route.GetName())
	}
	slices.Sort(got)
	if want := []string{"GRPCRoute/greeter", "TCPRoute/db", "TLSRoute/secure", "UDPRoute/dns"}; !slices.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
	if len(set.HTTPRoutes) != 1 {
		t.Errorf("read %d HTTPRoutes, want 1", len(set.HTTPRoutes))
	}
	if !slices.ContainsFunc(unread, func(u offline.Unread) bool { return strings.HasPrefix(u.String(), "TCPRoutes in all namespaces") }) {
		t.Errorf("TCPRoutes that could not be listed everywhere are not said to be unread: %q", unread)
	}
}

func TestFromClusterFailsOnWhatIsNotAboutRights(t *testing.T) {
	r := fake.NewClientBuilder().WithScheme(scheme.New()).WithInterceptorFuncs(interceptor.Funcs{
		List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
			return apierrors.NewServiceUnavailable("etcd is down")
		},
	}).Build()
	if _, _, err := offline.FromCluster(context.Background(), r, offline.ClusterOptions{}); !apierrors.IsServiceUnavailable(err) {
		t.Errorf("got %v, want the API server's error", err)
	}
}

// TestFromClusterReadsTheSecretsAndServicesThatRefsName: Secrets and Services are kept
// only of the namespaces that certificateRefs and backendRefs name, those of the objects
// a diff changes included (a new route's backend in a namespace no live route names
// must not show as missing); Secrets are read only there, Services as metadata in one
// request where the caller may list them cluster-wide, else only there too.
func TestFromClusterReadsTheSecretsAndServicesThatRefsName(t *testing.T) {
	route := func(namespace, name, backendNamespace string) *gatewayv1.HTTPRoute {
		ns := gatewayv1.Namespace(backendNamespace)
		return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: gatewayv1.HTTPRouteSpec{
			Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: "app", Namespace: &ns}}}}}},
		}}
	}
	certs := gatewayv1.Namespace("certs")
	changedGateway := gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "new"}, Spec: gatewayv1.GatewaySpec{
		Listeners: []gatewayv1.Listener{{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, TLS: &gatewayv1.ListenerTLSConfig{
			CertificateRefs: []gatewayv1.SecretObjectReference{{Name: "wildcard", Namespace: &certs}}}}},
	}}
	svc := func(namespace string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "app"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	}
	for _, tc := range []struct {
		name             string
		servicesListable bool
		wantListed       []string
	}{
		{"Services listable cluster-wide", true, []string{"Secrets in certs", "Services (metadata) in all namespaces"}},
		{"Services listable only namespace by namespace", false, []string{"Secrets in certs", "Services (metadata) in all namespaces", "Services (metadata) in backends", "Services (metadata) in new-backends"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var listed []string
			r := fake.NewClientBuilder().WithScheme(scheme.New()).
				WithObjects(route("team-a", "live", "backends"), svc("backends"), svc("elsewhere"), svc("new-backends")).
				WithInterceptorFuncs(interceptor.Funcs{
					List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
						var o client.ListOptions
						o.ApplyOptions(opts)
						where := "in all namespaces"
						if o.Namespace != "" {
							where = "in " + o.Namespace
						}
						switch l := list.(type) {
						case *corev1.ServiceList:
							t.Error("listed Services in full")
						case *metav1.PartialObjectMetadataList:
							if l.GetObjectKind().GroupVersionKind().Kind == "ServiceList" {
								listed = append(listed, "Services (metadata) "+where)
								if !tc.servicesListable && o.Namespace == "" {
									return apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "", nil)
								}
							}
						case *corev1.SecretList:
							listed = append(listed, "Secrets "+where)
							return apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", nil)
						}
						return c.List(ctx, list, opts...)
					},
				}).Build()
			changes := &offline.Set{Gateways: []gatewayv1.Gateway{changedGateway}, HTTPRoutes: []gatewayv1.HTTPRoute{*route("team-a", "added", "new-backends")}}

			set, unread, err := offline.FromCluster(context.Background(), r, offline.ClusterOptions{Namespaces: []string{"team-a"}, Changes: changes})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(listed)
			if !slices.Equal(listed, tc.wantListed) {
				t.Errorf("listed %q, want %q", listed, tc.wantListed)
			}
			var services []string
			for _, s := range set.Services {
				services = append(services, s.Namespace+"/"+s.Name)
			}
			if want := []string{"backends/app", "new-backends/app"}; !slices.Equal(services, want) {
				t.Errorf("kept Services %q, want %q", services, want)
			}
			if !set.SecretsUnread || set.ServicesUnread {
				t.Errorf("SecretsUnread %v, ServicesUnread %v; want true, false", set.SecretsUnread, set.ServicesUnread)
			}
			if want := "Secrets in namespace certs: missing permission list secrets; certificateRefs to them count as resolved"; !slices.ContainsFunc(unread, func(u offline.Unread) bool { return u.String() == want }) {
				t.Errorf("no unread %q in %q", want, unread)
			}
		})
	}
}

// perNamespaceJSONReader answers as the API server answers a caller who may list
// HTTPRoutes only namespace by namespace, and decodes each answer into the list it is
// given as the REST client does: JSON unmarshalled over what the list already holds.
type perNamespaceJSONReader struct {
	client.Reader
	routes map[string][]gatewayv1.HTTPRoute
}

func (r perNamespaceJSONReader) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	var o client.ListOptions
	o.ApplyOptions(opts)
	routes, ok := list.(*gatewayv1.HTTPRouteList)
	if !ok || o.Namespace == "" {
		return apierrors.NewForbidden(schema.GroupResource{Resource: "things"}, "", nil)
	}
	data, err := json.Marshal(gatewayv1.HTTPRouteList{Items: r.routes[o.Namespace]})
	if err != nil {
		return err
	}
	return json.Unmarshal(data, routes)
}

// TestFromClusterKeepsEachNamespaceOwnObjects: read namespace by namespace, an object
// of one namespace carries nothing of another's, whatever the decoding leaves in place.
func TestFromClusterKeepsEachNamespaceOwnObjects(t *testing.T) {
	platform := gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "gatewright-system", Name: "r", Labels: map[string]string{"tier": "platform"}},
		Spec: gatewayv1.HTTPRouteSpec{Hostnames: []gatewayv1.Hostname{"platform.example.com"}}}
	tenant := gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "r"}}
	r := perNamespaceJSONReader{routes: map[string][]gatewayv1.HTTPRoute{"gatewright-system": {platform}, "team-a": {tenant}}}

	set, _, err := offline.FromCluster(context.Background(), r, offline.ClusterOptions{Namespaces: []string{"team-a", "gatewright-system"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.HTTPRoutes) != 2 {
		t.Fatalf("read %d HTTPRoutes, want 2", len(set.HTTPRoutes))
	}
	for _, got := range set.HTTPRoutes {
		if got.Namespace == "team-a" && (len(got.Labels) != 0 || len(got.Spec.Hostnames) != 0) {
			t.Errorf("team-a's route carries labels %v and hostnames %v of another namespace's", got.Labels, got.Spec.Hostnames)
		}
	}
}
