package rollout

import (
	"slices"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/routes"
)

const inputsGateway = `
metadata: {namespace: shop, name: web, uid: gw-1, generation: 3}
spec:
  gatewayClassName: internet
  infrastructure: {parametersRef: {group: gatewright.dev, kind: GatewayConfig, name: named}}
  listeners: [{name: http, port: 80, protocol: HTTP}]
`

func inputsConfigs(t *testing.T) []gatewrightv1alpha1.GatewayConfig {
	docs := []string{
		`{metadata: {namespace: shop, name: for-web, uid: c-1, generation: 1}, spec: {targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]}}`,
		`{metadata: {namespace: shop, name: for-shop, uid: c-2, generation: 1}, spec: {targetRefs: [{group: "", kind: Namespace, name: shop}]}}`,
		`{metadata: {namespace: shop, name: for-cart, uid: c-3, generation: 1}, spec: {targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]}}`,
		`{metadata: {namespace: shop, name: named, uid: c-4, generation: 1}}`,
		`{metadata: {namespace: shop, name: for-api, uid: c-5, generation: 1}, spec: {targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: api}]}}`,
		`{metadata: {namespace: other, name: for-web, uid: c-6, generation: 1}, spec: {targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]}}`,
	}
	out := make([]gatewrightv1alpha1.GatewayConfig, len(docs))
	for i, doc := range docs {
		out[i] = *decode[gatewrightv1alpha1.GatewayConfig](t, doc)
	}
	return out
}

func inputsRoutes(t *testing.T) []*gatewayv1.HTTPRoute {
	return []*gatewayv1.HTTPRoute{
		decode[gatewayv1.HTTPRoute](t, `{metadata: {namespace: shop, name: cart, uid: r-1, generation: 2, labels: {team: cart}}}`),
		decode[gatewayv1.HTTPRoute](t, `{metadata: {namespace: blog, name: posts, uid: r-2, generation: 1}}`),
	}
}

func TestTenantInputs(t *testing.T) {
	cases := []struct {
		name    string
		change  func(gw *gatewayv1.Gateway, configs *[]gatewrightv1alpha1.GatewayConfig, routes *[]*gatewayv1.HTTPRoute)
		changed bool
	}{
		{"status writes change nothing", func(gw *gatewayv1.Gateway, configs *[]gatewrightv1alpha1.GatewayConfig, routes *[]*gatewayv1.HTTPRoute) {
			gw.Status.Conditions = []metav1.Condition{{Type: "Programmed", Status: metav1.ConditionTrue}}
			gw.ResourceVersion = "99"
			(*routes)[0].Status.Parents = []gatewayv1.RouteParentStatus{{ControllerName: gatewrightv1alpha1.ControllerName}}
			(*configs)[0].ResourceVersion = "98"
		}, false},
		{"the order of the lists changes nothing", func(_ *gatewayv1.Gateway, configs *[]gatewrightv1alpha1.GatewayConfig, routes *[]*gatewayv1.HTTPRoute) {
			slices.Reverse(*configs)
			slices.Reverse(*routes)
		}, false},
		{"an edit of the Gateway's spec (or a move to another class) is a change", func(gw *gatewayv1.Gateway, _ *[]gatewrightv1alpha1.GatewayConfig, _ *[]*gatewayv1.HTTPRoute) {
			gw.Generation++
		}, true},
		{"a Gateway recreated under the same name is a change", func(gw *gatewayv1.Gateway, _ *[]gatewrightv1alpha1.GatewayConfig, _ *[]*gatewayv1.HTTPRoute) {
			gw.UID = "gw-2"
		}, true},
		{"an edit of a GatewayConfig that targets the Gateway is a change", func(_ *gatewayv1.Gateway, configs *[]gatewrightv1alpha1.GatewayConfig, _ *[]*gatewayv1.HTTPRoute) {
			(*configs)[0].Generation++
		}, true},
		{"an edit of a GatewayConfig that targets the namespace is a change", func(_ *gatewayv1.Gateway, configs *[]gatewrightv1alpha1.GatewayConfig, _ *[]*gatewayv1.HTTPRoute) {
			(*configs)[1].Generation++
		}, true},
		{"an edit of a GatewayConfig that targets one of its own routes is a change", func(_ *gatewayv1.Gateway, configs *[]gatewrightv1alpha1.GatewayConfig, _ *[]*gatewayv1.HTTPRoute) {
			(*configs)[2].Generation++
		}, true},
		{"an edit of the GatewayConfig its parametersRef names is a change", func(_ *gatewayv1.Gateway, configs *[]gatewrightv1alpha1.GatewayConfig, _ *[]*gatewayv1.HTTPRoute) {
			(*configs)[3].Generation++
		}, true},
		{"a new GatewayConfig for it is a change", func(_ *gatewayv1.Gateway, configs *[]gatewrightv1alpha1.GatewayConfig, _ *[]*gatewayv1.HTTPRoute) {
			extra := (*configs)[0]
			extra.Name, extra.UID = "more-for-web", "c-7"
			*configs = append(*configs, extra)
		}, true},
		{"an edit of a GatewayConfig for another Gateway is not", func(_ *gatewayv1.Gateway, configs *[]gatewrightv1alpha1.GatewayConfig, _ *[]*gatewayv1.HTTPRoute) {
			(*configs)[4].Generation++
		}, false},
		{"an edit of a GatewayConfig of another namespace is not", func(_ *gatewayv1.Gateway, configs *[]gatewrightv1alpha1.GatewayConfig, _ *[]*gatewayv1.HTTPRoute) {
			(*configs)[5].Generation++
		}, false},
		{"a route attached is a change", func(_ *gatewayv1.Gateway, _ *[]gatewrightv1alpha1.GatewayConfig, routes *[]*gatewayv1.HTTPRoute) {
			*routes = append(*routes, decode[gatewayv1.HTTPRoute](t, `{metadata: {namespace: shop, name: new, uid: r-3, generation: 1}}`))
		}, true},
		{"a route of another namespace attached is a change too: it changes what the Gateway renders", func(_ *gatewayv1.Gateway, _ *[]gatewrightv1alpha1.GatewayConfig, routes *[]*gatewayv1.HTTPRoute) {
			(*routes)[1].Generation++
		}, true},
		{"a route's labels, which templates may read, are a change", func(_ *gatewayv1.Gateway, _ *[]gatewrightv1alpha1.GatewayConfig, routes *[]*gatewayv1.HTTPRoute) {
			(*routes)[0].Labels["team"] = "checkout"
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gw := decode[gatewayv1.Gateway](t, inputsGateway)
			configs, routes := inputsConfigs(t), inputsRoutes(t)
			before := TenantInputs(gw, configs, routes, nil)
			c.change(gw, &configs, &routes)
			if after := TenantInputs(gw, configs, routes, nil); (after != before) != c.changed {
				t.Errorf("fingerprint changed %v, want %v", after != before, c.changed)
			}
		})
	}
}

func TestTenantInputsOfRoutesOfOtherKinds(t *testing.T) {
	gw := decode[gatewayv1.Gateway](t, inputsGateway)
	configs, httpRoutes := inputsConfigs(t), inputsRoutes(t)
	grpc := func(generation int64) []routes.Route {
		return []routes.Route{decode[gatewayv1.GRPCRoute](t, `{metadata: {namespace: shop, name: rpc, uid: g-1, generation: 1}}`),
			decode[gatewayv1.TCPRoute](t, `{metadata: {namespace: shop, name: db, uid: t-1, generation: `+strconv.FormatInt(generation, 10)+`}}`)}
	}
	without := TenantInputs(gw, configs, httpRoutes, nil)
	with := TenantInputs(gw, configs, httpRoutes, grpc(1))
	if with == without {
		t.Error("routes of other kinds attached change nothing")
	}
	if TenantInputs(gw, configs, httpRoutes, grpc(2)) == with {
		t.Error("an edit of a TCPRoute changes nothing")
	}
	// An HTTPRoute named as a route of another kind is another route.
	asHTTP := []*gatewayv1.HTTPRoute{decode[gatewayv1.HTTPRoute](t, `{metadata: {namespace: shop, name: rpc, uid: g-1, generation: 1}}`)}
	if TenantInputs(gw, configs, asHTTP, nil) == TenantInputs(gw, configs, nil, grpc(1)[:1]) {
		t.Error("an HTTPRoute and a GRPCRoute of the same name, UID and generation have the same fingerprint")
	}
	forRPC := *decode[gatewrightv1alpha1.GatewayConfig](t, `{metadata: {namespace: shop, name: for-rpc, uid: c-9, generation: 1}, spec: {targetRefs: [{group: gateway.networking.k8s.io, kind: GRPCRoute, name: rpc}]}}`)
	before := TenantInputs(gw, append(configs, forRPC), httpRoutes, grpc(1))
	forRPC.Generation++
	if TenantInputs(gw, append(configs, forRPC), httpRoutes, grpc(1)) == before {
		t.Error("an edit of a GatewayConfig that targets one of its GRPCRoutes changes nothing")
	}
}

// TestTenantInputsKeepTheirFormat pins the fingerprint of a set of inputs: records hold
// fingerprints computed by earlier versions, and a rollout compares them with what it
// computes now, so a new way of computing it must give the same for the same inputs.
func TestTenantInputsKeepTheirFormat(t *testing.T) {
	gw := decode[gatewayv1.Gateway](t, inputsGateway)
	// Names of which one begins another (cart, cart-v2; shop, shop-eu) order the lines
	// by more than their first word.
	httpRoutes := append(inputsRoutes(t),
		decode[gatewayv1.HTTPRoute](t, `{metadata: {namespace: shop, name: quoted, uid: r-4, generation: 7, labels: {"a\"b": "é\n", z: ""}, annotations: {note: "x=y,z"}}}`),
		decode[gatewayv1.HTTPRoute](t, `{metadata: {namespace: shop, name: cart-v2, uid: r-5, generation: 1}}`),
		decode[gatewayv1.HTTPRoute](t, `{metadata: {namespace: shop-eu, name: cart, uid: r-6, generation: 1}}`))
	others := []routes.Route{decode[gatewayv1.TCPRoute](t, `{metadata: {namespace: shop, name: db, uid: t-1, generation: 2}}`)}
	const want = "e9de7b779d6151e974ec4b0e2370daf0495a0766d9edbb27f949b3fe73c534e2"
	if got := TenantInputs(gw, inputsConfigs(t), httpRoutes, others); got != want {
		t.Errorf("fingerprint %s, want %s", got, want)
	}
}

// BenchmarkTenantInputsOf5000Routes is the fingerprint of a shared Gateway's routes,
// computed at each of its renders.
func BenchmarkTenantInputsOf5000Routes(b *testing.B) {
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-0", Name: "shared", UID: "gw-1", Generation: 1}}
	httpRoutes := make([]*gatewayv1.HTTPRoute, 5000)
	for i := range httpRoutes {
		httpRoutes[i] = &gatewayv1.HTTPRoute{}
		httpRoutes[i].ObjectMeta = metav1.ObjectMeta{Namespace: "tenant-" + strconv.Itoa(i%10), Name: "route-" + strconv.Itoa(i), UID: types.UID("r-" + strconv.Itoa(i)), Generation: 1}
	}
	b.ReportAllocs()
	for b.Loop() {
		TenantInputs(gw, nil, httpRoutes, nil)
	}
}
