package attach

import (
	"reflect"
	"slices"
	"testing"

	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/listeners"
)

const gatewayYAML = `
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: internet
  listeners:
  - {name: same, protocol: HTTP, port: 80}
  - {name: all, protocol: HTTP, port: 8080, allowedRoutes: {namespaces: {from: All}}}
  - {name: selected, protocol: HTTPS, port: 443, hostname: "*.example.com", allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {shared: "true"}}}}}
  - {name: tcp, protocol: TCP, port: 9000, allowedRoutes: {namespaces: {from: All}}}
  - {name: grpc-only, protocol: HTTP, port: 8081, allowedRoutes: {namespaces: {from: All}, kinds: [{kind: GRPCRoute}]}}
`

func TestListeners(t *testing.T) {
	var gw gatewayv1.Gateway
	if err := yaml.UnmarshalStrict([]byte(gatewayYAML), &gw); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		route    string
		nsLabels map[string]string
		want     []gatewayv1.SectionName
	}{
		{"a route in the Gateway's namespace attaches to every HTTP listener that takes it",
			`{metadata: {name: r, namespace: infra}, spec: {parentRefs: [{name: web}]}}`, nil, []gatewayv1.SectionName{"same", "all"}},
		{"a route elsewhere attaches only where namespaces are All",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: web, namespace: infra}]}}`, nil, []gatewayv1.SectionName{"all"}},
		{"a route in a selected namespace attaches to the Selector listener when its hostname matches the wildcard",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: web, namespace: infra}], hostnames: [shop.example.com]}}`, map[string]string{"shared": "true"}, []gatewayv1.SectionName{"all", "selected"}},
		{"a hostname outside the listener's wildcard does not attach there",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: web, namespace: infra}], hostnames: [shop.example.org]}}`, map[string]string{"shared": "true"}, []gatewayv1.SectionName{"all"}},
		{"the wildcard does not match the bare domain",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: web, namespace: infra, sectionName: selected}], hostnames: [example.com]}}`, map[string]string{"shared": "true"}, nil},
		{"sectionName picks one listener",
			`{metadata: {name: r, namespace: infra}, spec: {parentRefs: [{name: web, sectionName: all}]}}`, nil, []gatewayv1.SectionName{"all"}},
		{"port picks the listeners on that port",
			`{metadata: {name: r, namespace: infra}, spec: {parentRefs: [{name: web, port: 80}]}}`, nil, []gatewayv1.SectionName{"same"}},
		{"a parentRef to a Gateway of the same name in another namespace does not attach",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: web}]}}`, nil, nil},
		{"a parentRef of another kind does not attach",
			`{metadata: {name: r, namespace: infra}, spec: {parentRefs: [{name: web, kind: Service, group: ""}]}}`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var route gatewayv1.HTTPRoute
			if err := yaml.UnmarshalStrict([]byte(tt.route), &route); err != nil {
				t.Fatal(err)
			}
			if got := Listeners(&gw, listeners.Serves{}, RouteOf(&route), tt.nsLabels); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHostnameMatches(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"example.com", "example.com", true},
		{"*.example.com", "a.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "*.a.example.com", true},
		{"a.example.com", "b.example.com", false},
	}
	for _, tt := range tests {
		if got := hostnameMatches(tt.pattern, tt.name); got != tt.want {
			t.Errorf("hostnameMatches(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

// reasonsGatewayYAML has one listener per rule that can refuse a route.
const reasonsGatewayYAML = `
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: internet
  listeners:
  - {name: same, protocol: HTTP, port: 80, hostname: "*.example.com"}
  - {name: all, protocol: HTTP, port: 8080, hostname: shop.example.com, allowedRoutes: {namespaces: {from: All}}}
  - {name: selected, protocol: HTTPS, port: 443, allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {shared: "true"}}}}}
  - {name: tcp, protocol: TCP, port: 9000, allowedRoutes: {namespaces: {from: All}}}
  - {name: grpc-only, protocol: HTTP, port: 80, hostname: grpc.example.com, allowedRoutes: {namespaces: {from: All}, kinds: [{kind: GRPCRoute}]}}
`

func TestAttach(t *testing.T) {
	var gw gatewayv1.Gateway
	if err := yaml.UnmarshalStrict([]byte(reasonsGatewayYAML), &gw); err != nil {
		t.Fatal(err)
	}
	shared := map[string]string{"shared": "true"}
	tests := []struct {
		name      string
		namespace string
		ref       string
		hostnames []gatewayv1.Hostname
		nsLabels  map[string]string
		want      Result
	}{
		{"a route in the Gateway's namespace attaches to every HTTP listener that takes its namespace",
			"infra", `{name: web}`, nil, nil,
			Result{Listeners: []gatewayv1.SectionName{"same", "all"}}},
		{"a sectionName that names no listener is NoMatchingParent",
			"infra", `{name: web, sectionName: http1}`, nil, nil,
			Result{Reason: gatewayv1.RouteReasonNoMatchingParent, Message: "Gateway infra/web has no listener named http1"}},
		{"a port no listener listens on is NoMatchingParent",
			"infra", `{name: web, port: 81}`, nil, nil,
			Result{Reason: gatewayv1.RouteReasonNoMatchingParent, Message: "Gateway infra/web has no listener on port 81"}},
		{"a sectionName whose listener is on another port is NoMatchingParent",
			"infra", `{name: web, sectionName: same, port: 8080}`, nil, nil,
			Result{Reason: gatewayv1.RouteReasonNoMatchingParent, Message: "Gateway infra/web has no listener named same on port 8080"}},
		{"a parentRef that names another Gateway is NoMatchingParent",
			"infra", `{name: api}`, nil, nil,
			Result{Reason: gatewayv1.RouteReasonNoMatchingParent, Message: "the parentRef does not name Gateway infra/web"}},
		{"a route from another namespace on a listener with from Same is NotAllowedByListeners",
			"team-a", `{name: web, namespace: infra, sectionName: same}`, nil, nil,
			Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: "listener same takes routes from namespace infra only"}},
		{"a route from another namespace attaches to a listener with from All",
			"team-a", `{name: web, namespace: infra, sectionName: all}`, nil, nil,
			Result{Listeners: []gatewayv1.SectionName{"all"}}},
		{"a route from a namespace the selector does not match is NotAllowedByListeners",
			"team-a", `{name: web, namespace: infra, sectionName: selected}`, nil, map[string]string{"shared": "false"},
			Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: "listener selected selects namespaces by label, and not namespace team-a"}},
		{"a route from a namespace the selector matches attaches",
			"team-a", `{name: web, namespace: infra, sectionName: selected}`, nil, shared,
			Result{Listeners: []gatewayv1.SectionName{"selected"}}},
		{"a listener whose kinds leave out HTTPRoute is NotAllowedByListeners",
			"infra", `{name: web, sectionName: grpc-only}`, nil, nil,
			Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: "listener grpc-only does not list HTTPRoute in allowedRoutes.kinds"}},
		{"a listener whose protocol takes no HTTPRoute is NotAllowedByListeners",
			"infra", `{name: web, port: 9000}`, nil, nil,
			Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: "listener tcp has protocol TCP, which takes no HTTPRoute"}},
		{"a hostname outside the listener's wildcard is NoMatchingListenerHostname, even the bare domain",
			"infra", `{name: web, sectionName: same}`, []gatewayv1.Hostname{"example.com", "shop.example.org"}, nil,
			Result{Reason: gatewayv1.RouteReasonNoMatchingListenerHostname, Message: "no hostname of the route intersects the listener hostnames *.example.com"}},
		{"a route wildcard intersects a listener's specific hostname under it",
			"team-a", `{name: web, namespace: infra, sectionName: all}`, []gatewayv1.Hostname{"other.org", "*.example.com"}, nil,
			Result{Listeners: []gatewayv1.SectionName{"all"}}},
		{"a route wildcard intersects a listener wildcard above it",
			"infra", `{name: web, sectionName: same}`, []gatewayv1.Hostname{"*.shop.example.com"}, nil,
			Result{Listeners: []gatewayv1.SectionName{"same"}}},
		{"a listener without a hostname takes any hostname",
			"team-a", `{name: web, namespace: infra, sectionName: selected}`, []gatewayv1.Hostname{"other.org"}, shared,
			Result{Listeners: []gatewayv1.SectionName{"selected"}}},
		{"a parentRef that matches no listener is NoMatchingParent, whatever else would refuse the route",
			"team-a", `{name: web, namespace: infra, sectionName: http1}`, []gatewayv1.Hostname{"other.org"}, nil,
			Result{Reason: gatewayv1.RouteReasonNoMatchingParent, Message: "Gateway infra/web has no listener named http1"}},
		{"when every matching listener refuses the route, NotAllowedByListeners wins over the hostnames that would refuse it too",
			"team-a", `{name: web, namespace: infra, port: 80}`, []gatewayv1.Hostname{"other.org"}, nil,
			Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners,
				Message: "listener same takes routes from namespace infra only; listener grpc-only does not list HTTPRoute in allowedRoutes.kinds"}},
		{"when one listener takes the route but not its hostnames, NoMatchingListenerHostname wins over the listeners that refuse it",
			"team-a", `{name: web, namespace: infra}`, []gatewayv1.Hostname{"other.org"}, nil,
			Result{Reason: gatewayv1.RouteReasonNoMatchingListenerHostname, Message: "no hostname of the route intersects the listener hostnames shop.example.com"}},
		{"the message names the hostname of every listener that takes the route",
			"infra", `{name: web}`, []gatewayv1.Hostname{"other.org"}, nil,
			Result{Reason: gatewayv1.RouteReasonNoMatchingListenerHostname, Message: "no hostname of the route intersects the listener hostnames *.example.com, shop.example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ref gatewayv1.ParentReference
			if err := yaml.UnmarshalStrict([]byte(tt.ref), &ref); err != nil {
				t.Fatal(err)
			}
			route := &gatewayv1.HTTPRoute{}
			route.Namespace, route.Name = tt.namespace, "shop"
			route.Spec.ParentRefs = []gatewayv1.ParentReference{ref}
			route.Spec.Hostnames = tt.hostnames
			if got := Attach(&gw, listeners.Serves{}, RouteOf(route), ref, tt.nsLabels); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParentGateway(t *testing.T) {
	route := &gatewayv1.HTTPRoute{}
	route.Namespace = "team-a"
	tests := []struct {
		name      string
		ref       string
		want      string
		isGateway bool
	}{
		{"a parentRef without namespace names a Gateway in the route's namespace", `{name: web}`, "team-a/web", true},
		{"a parentRef's namespace wins", `{name: web, namespace: infra}`, "infra/web", true},
		{"a parentRef that spells out the Gateway kind names a Gateway", `{name: web, group: gateway.networking.k8s.io, kind: Gateway}`, "team-a/web", true},
		{"a parentRef of another kind names no Gateway", `{name: web, group: "", kind: Service}`, "team-a/web", false},
		{"a parentRef of another group names no Gateway", `{name: web, group: example.com, kind: Gateway}`, "team-a/web", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ref gatewayv1.ParentReference
			if err := yaml.UnmarshalStrict([]byte(tt.ref), &ref); err != nil {
				t.Fatal(err)
			}
			if key, isGateway := ParentGateway(route, ref); key.String() != tt.want || isGateway != tt.isGateway {
				t.Errorf("got %s, %v; want %s, %v", key, isGateway, tt.want, tt.isGateway)
			}
		})
	}
}

func TestAListenerThatIsNotAcceptedTakesNoRoute(t *testing.T) {
	var gw gatewayv1.Gateway
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: internet
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: https, protocol: HTTPS, port: 80}
`), &gw); err != nil {
		t.Fatal(err)
	}
	route := gatewayv1.HTTPRoute{}
	route.Namespace = "infra"
	ref := gatewayv1.ParentReference{Name: "web", SectionName: ptr.To(gatewayv1.SectionName("http"))}
	got := Attach(&gw, listeners.Serves{}, RouteOf(&route), ref, nil)
	want := Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: "listener http is not accepted (see its conditions)"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("a route on a listener in a protocol conflict: got %+v, want %+v", got, want)
	}
}

func TestARouteAttachesWhereItsKindIsSupported(t *testing.T) {
	var gw gatewayv1.Gateway
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: internet
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: grpc-only, protocol: HTTP, port: 8080, allowedRoutes: {kinds: [{kind: GRPCRoute}]}}
  - {name: tls, protocol: TLS, port: 443, hostname: "*.example.com", tls: {mode: Passthrough}}
  - {name: tcp, protocol: TCP, port: 9000}
`), &gw); err != nil {
		t.Fatal(err)
	}
	everything := listeners.NewServes([]gatewayv1.ProtocolType{"HTTP", "HTTPS", "TLS", "TCP", "UDP"}, []gatewayv1.TLSModeType{"Terminate", "Passthrough"},
		[]gatewayv1.Kind{"HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"})
	grpcOnly := listeners.NewServes(nil, nil, []gatewayv1.Kind{"GRPCRoute"})
	tests := []struct {
		name      string
		serves    listeners.Serves
		kind      gatewayv1.Kind
		hostnames []gatewayv1.Hostname
		want      Result
	}{
		{"a GRPCRoute attaches to the HTTP listeners of a class that serves it", everything, "GRPCRoute", nil,
			Result{Listeners: []gatewayv1.SectionName{"http", "grpc-only"}}},
		{"an HTTPRoute on the same class leaves out the listener that lists GRPCRoute only", everything, "HTTPRoute", nil,
			Result{Listeners: []gatewayv1.SectionName{"http"}}},
		{"a TLSRoute attaches to the TLS listener when their hostnames intersect", everything, "TLSRoute", []gatewayv1.Hostname{"db.example.com"},
			Result{Listeners: []gatewayv1.SectionName{"tls"}}},
		{"a TCPRoute attaches to the TCP listener", everything, "TCPRoute", nil,
			Result{Listeners: []gatewayv1.SectionName{"tcp"}}},
		{"a kind no listener's protocol takes attaches nowhere", everything, "UDPRoute", nil,
			Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: "listener http has protocol HTTP, which takes no UDPRoute; " +
				"listener grpc-only has protocol HTTP, which takes no UDPRoute; listener tls has protocol TLS, which takes no UDPRoute; listener tcp has protocol TCP, which takes no UDPRoute"}},
		{"a TCPRoute on a class that does not serve TCP attaches nowhere", listeners.Serves{}, "TCPRoute", nil,
			Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: "listener http is of a GatewayClass that serves no TCPRoute; " +
				"listener grpc-only is of a GatewayClass that serves no TCPRoute; listener tls is of a GatewayClass that serves no TCPRoute; listener tcp is of a GatewayClass that serves no TCPRoute"}},
		{"an HTTPRoute on a class that serves GRPCRoute only attaches nowhere", grpcOnly, "HTTPRoute", nil,
			Result{Reason: gatewayv1.RouteReasonNotAllowedByListeners, Message: "listener http is of a GatewayClass that serves no HTTPRoute; " +
				"listener grpc-only is of a GatewayClass that serves no HTTPRoute; listener tls is of a GatewayClass that serves no HTTPRoute; listener tcp is of a GatewayClass that serves no HTTPRoute"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := gatewayv1.ParentReference{Name: "web"}
			route := Route{Kind: tt.kind, Namespace: "infra", ParentRefs: []gatewayv1.ParentReference{ref}, Hostnames: tt.hostnames}
			if got := Attach(&gw, tt.serves, route, ref, nil); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
			if got := Listeners(&gw, tt.serves, route, nil); !slices.Equal(got, tt.want.Listeners) {
				t.Errorf("Listeners: got %v, want %v", got, tt.want.Listeners)
			}
		})
	}
}
