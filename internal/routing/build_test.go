package routing

import (
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
)

const testGateway = `
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: c
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: shop, protocol: HTTP, port: 8080, hostname: "*.shop.example"}
  - {name: broken, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: missing}]}}
`

func gateway(t *testing.T) *gatewayv1.Gateway {
	t.Helper()
	gw := &gatewayv1.Gateway{}
	if err := yaml.UnmarshalStrict([]byte(testGateway), gw); err != nil {
		t.Fatal(err)
	}
	return gw
}

// judged is every listener of gw valid but "broken", whose certificate is missing.
func judged(gw *gatewayv1.Gateway) []listeners.Status {
	certificates := map[gatewayv1.SectionName][]listeners.CertificateRef{
		"broken": {{Kind: "Secret", Namespace: "infra", Name: "missing", Reason: gatewayv1.ListenerReasonInvalidCertificateRef}},
	}
	return listeners.Evaluate(listeners.Serves{}, gw.Spec.Listeners, certificates)
}

// route parses an HTTPRoute of the given age in minutes from its spec.
func route(t *testing.T, namespace, name string, ageMinutes int, spec string) *gatewayv1.HTTPRoute {
	t.Helper()
	r := &gatewayv1.HTTPRoute{}
	if err := yaml.UnmarshalStrict([]byte(spec), &r.Spec); err != nil {
		t.Fatal(err)
	}
	r.Namespace, r.Name = namespace, name
	r.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(ageMinutes) * time.Minute))
	return r
}

// resolvedInput attaches each route to the listeners named, every backendRef resolved.
func resolvedInput(t *testing.T, gw *gatewayv1.Gateway, attached map[*gatewayv1.HTTPRoute][]gatewayv1.SectionName) Input {
	in := Input{Gateway: gw, Listeners: judged(gw)}
	for r, names := range attached {
		res, err := attach.ResolveBackendRefs(r, nil, func(string, string) (bool, error) { return true, nil })
		if err != nil {
			t.Fatal(err)
		}
		in.Routes = append(in.Routes, RouteInput{Route: r, Listeners: names, BackendRefs: res.BackendRefs})
	}
	return in
}

func hostNames(l Listener) []string {
	var out []string
	for _, h := range l.Hosts {
		out = append(out, h.Hostname)
	}
	return out
}

func matchNames(h Host) []string {
	var out []string
	for _, m := range h.Matches {
		out = append(out, m.Name)
	}
	return out
}

func TestMatchesAreInGatewayAPIPrecedence(t *testing.T) {
	tests := []struct {
		name   string
		routes []*gatewayv1.HTTPRoute
		want   []string
	}{
		{
			name: "an exact path beats a longer prefix, a longer prefix a shorter",
			routes: []*gatewayv1.HTTPRoute{
				route(t, "a", "r", 0, `{rules: [{matches: [{path: {value: /}}, {path: {value: /shop/cart/items}}, {path: {type: Exact, value: /shop}}]}]}`),
			},
			want: []string{"a/r/rule/0/match/2", "a/r/rule/0/match/1", "a/r/rule/0/match/0"},
		},
		{
			name: "a regular expression is tried after exact paths and before prefixes",
			routes: []*gatewayv1.HTTPRoute{
				route(t, "a", "r", 0, `{rules: [{matches: [{path: {value: /very/long/prefix}}, {path: {type: RegularExpression, value: "/v[0-9]+"}}, {path: {type: Exact, value: /x}}]}]}`),
			},
			want: []string{"a/r/rule/0/match/2", "a/r/rule/0/match/1", "a/r/rule/0/match/0"},
		},
		{
			name: "on the same path, a method beats none, then more headers, then more query parameters",
			routes: []*gatewayv1.HTTPRoute{
				route(t, "a", "r", 0, `{rules: [
				  {matches: [{path: {value: /api}, queryParams: [{name: q, value: "1"}]}]},
				  {matches: [{path: {value: /api}, headers: [{name: X-A, value: "1"}, {name: X-B, value: "2"}]}]},
				  {matches: [{path: {value: /api}, headers: [{name: X-A, value: "1"}]}]},
				  {matches: [{path: {value: /api}, method: GET}]}]}`),
			},
			want: []string{"a/r/rule/3/match/0", "a/r/rule/1/match/0", "a/r/rule/2/match/0", "a/r/rule/0/match/0"},
		},
		{
			name: "a tie across routes goes to the older route, then to namespace/name",
			routes: []*gatewayv1.HTTPRoute{
				route(t, "b", "young", 1, `{rules: [{matches: [{path: {value: /x}}]}]}`),
				route(t, "b", "old", 10, `{rules: [{matches: [{path: {value: /x}}]}]}`),
				route(t, "a", "young", 1, `{rules: [{matches: [{path: {value: /x}}]}]}`),
			},
			want: []string{"b/old/rule/0/match/0", "a/young/rule/0/match/0", "b/young/rule/0/match/0"},
		},
		{
			name: "a tie within a route goes to the first rule",
			routes: []*gatewayv1.HTTPRoute{
				route(t, "a", "r", 0, `{rules: [{matches: [{path: {value: /x}}]}, {matches: [{path: {value: /x}}]}]}`),
			},
			want: []string{"a/r/rule/0/match/0", "a/r/rule/1/match/0"},
		},
		{
			name: "a rule without matches takes every path, after every longer prefix",
			routes: []*gatewayv1.HTTPRoute{
				route(t, "a", "r", 0, `{rules: [{}, {matches: [{path: {value: /x}}]}]}`),
			},
			want: []string{"a/r/rule/1/match/0", "a/r/rule/0/match/0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := gateway(t)
			attached := map[*gatewayv1.HTTPRoute][]gatewayv1.SectionName{}
			for _, r := range tt.routes {
				attached[r] = []gatewayv1.SectionName{"http"}
			}
			table := Build(resolvedInput(t, gw, attached))
			http := table.Listeners[0]
			if got := hostNames(http); !slices.Equal(got, []string{"*"}) {
				t.Fatalf("hosts %v, want [*]", got)
			}
			if got := matchNames(http.Hosts[0]); !slices.Equal(got, tt.want) {
				t.Errorf("matches in order %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHostsAreListenerAndRouteHostnamesIntersected(t *testing.T) {
	gw := gateway(t)
	specific := route(t, "a", "specific", 0, `{hostnames: [a.shop.example, "*.example", other.test], rules: [{}]}`)
	wildcard := route(t, "a", "wildcard", 0, `{hostnames: ["*.shop.example"], rules: [{}]}`)
	plain := route(t, "a", "plain", 0, `{rules: [{}]}`)
	attached := map[*gatewayv1.HTTPRoute][]gatewayv1.SectionName{
		specific: {"http", "shop"}, wildcard: {"shop"}, plain: {"http", "shop"},
	}
	table := Build(resolvedInput(t, gw, attached))
	if got, want := hostNames(table.Listeners[0]), []string{"a.shop.example", "other.test", "*.example", "*"}; !slices.Equal(got, want) {
		t.Errorf("listener http hosts %v, want %v", got, want)
	}
	// On *.shop.example, "*.example" narrows to the listener's hostname.
	shop := table.Listeners[1]
	if got, want := hostNames(shop), []string{"a.shop.example", "*.shop.example"}; !slices.Equal(got, want) {
		t.Fatalf("listener shop hosts %v, want %v", got, want)
	}
	if got, want := matchNames(shop.Hosts[1]), []string{"a/plain/rule/0/match/0", "a/specific/rule/0/match/0", "a/wildcard/rule/0/match/0"}; !slices.Equal(got, want) {
		t.Errorf("*.shop.example matches %v, want %v", got, want)
	}
}

func TestListenersThatAreNotValidServeNothing(t *testing.T) {
	gw := gateway(t)
	r := route(t, "a", "r", 0, `{rules: [{}]}`)
	table := Build(resolvedInput(t, gw, map[*gatewayv1.HTTPRoute][]gatewayv1.SectionName{r: {"http", "broken"}}))
	broken := table.Listeners[2]
	if broken.Valid || len(broken.Hosts) != 0 || broken.TLSMode != "Terminate" {
		t.Errorf("listener broken: valid %v, hosts %v, tls mode %q; want not valid, no hosts, Terminate", broken.Valid, hostNames(broken), broken.TLSMode)
	}
	if !table.Listeners[0].Valid || len(table.Listeners[0].Hosts) != 1 {
		t.Errorf("listener http should serve the route")
	}
}

func TestARefusedRouteIsInNoListener(t *testing.T) {
	gw := gateway(t)
	good := route(t, "a", "good", 0, `{rules: [{}]}`)
	bad := route(t, "a", "bad", 0, `{rules: [{matches: [{path: {type: Exact, value: /bad}}]}]}`)
	in := resolvedInput(t, gw, map[*gatewayv1.HTTPRoute][]gatewayv1.SectionName{good: {"http"}, bad: {"http"}})
	for i := range in.Routes {
		if in.Routes[i].Route == bad {
			in.Routes[i].Refusal = &Refusal{Reason: "TooManyRoutes", Message: "past the bound"}
		}
	}
	table := Build(in)
	if got := matchNames(table.Listeners[0].Hosts[0]); !slices.Equal(got, []string{"a/good/rule/0/match/0"}) {
		t.Errorf("matches %v, want only a/good's", got)
	}
	want := []RouteVerdict{
		{ObjectRef: ObjectRef{Kind: "HTTPRoute", Namespace: "a", Name: "bad"}, Reason: "TooManyRoutes", Message: "past the bound", Listeners: []string{"http"}},
		{ObjectRef: ObjectRef{Kind: "HTTPRoute", Namespace: "a", Name: "good"}, Accepted: true, Reason: "Accepted", Listeners: []string{"http"}},
	}
	if got := fmt.Sprint(table.Routes); got != fmt.Sprint(want) {
		t.Errorf("verdicts %s, want %s", got, fmt.Sprint(want))
	}
}

func TestBackendsCarryWeightsResolutionAndNormalizedFilters(t *testing.T) {
	gw := gateway(t)
	r := route(t, "a", "r", 0, `{rules: [
	  {backendRefs: [{name: one, port: 80}, {name: two, port: 8080, weight: 3}, {name: other, namespace: b, port: 80, weight: 0}]},
	  {filters: [{type: RequestRedirect, requestRedirect: {scheme: https}}]}]}`)
	res, err := attach.ResolveBackendRefs(r, nil, func(_, name string) (bool, error) { return name != "two", nil })
	if err != nil {
		t.Fatal(err)
	}
	table := Build(Input{Gateway: gw, Listeners: judged(gw), Routes: []RouteInput{{Route: r, Listeners: []gatewayv1.SectionName{"http"}, BackendRefs: res.BackendRefs}}})
	matches := table.Listeners[0].Hosts[0].Matches
	var first Match
	for _, m := range matches {
		if m.Rule == 0 {
			first = *m
		}
	}
	want := []HTTPBackend{
		{Backend{Kind: "Service", Namespace: "a", Name: "one", Port: 80, Weight: 1, Resolved: true, Reason: "ResolvedRefs"}, []gatewayv1.HTTPRouteFilter{}},
		{Backend{Kind: "Service", Namespace: "a", Name: "two", Port: 8080, Weight: 3, Reason: "BackendNotFound"}, []gatewayv1.HTTPRouteFilter{}},
		{Backend{Kind: "Service", Namespace: "b", Name: "other", Port: 80, Weight: 0, Reason: "RefNotPermitted"}, []gatewayv1.HTTPRouteFilter{}},
	}
	if fmt.Sprint(first.Backends) != fmt.Sprint(want) {
		t.Errorf("backends %v, want %v", first.Backends, want)
	}
	for _, m := range matches {
		if m.Rule == 1 && (len(m.Filters) != 1 || m.Filters[0].RequestRedirect.StatusCode == nil || *m.Filters[0].RequestRedirect.StatusCode != 302) {
			t.Errorf("rule 1's redirect has no status code 302: %+v", m.Filters)
		}
	}
	if r.Spec.Rules[1].Filters[0].RequestRedirect.StatusCode != nil {
		t.Error("normalizing changed the route itself")
	}
}

// TestLargestTableIsBuiltLinearly builds 5,000 routes and a route of 128 matches: every
// match is in the table once per hostname.
func TestLargestTableHoldsEveryMatch(t *testing.T) {
	gw := gateway(t)
	attached := map[*gatewayv1.HTTPRoute][]gatewayv1.SectionName{}
	for i := range 5000 {
		attached[route(t, fmt.Sprintf("team-%d", i%10), fmt.Sprintf("r%d", i), i%7,
			fmt.Sprintf(`{hostnames: [app%d.example], rules: [{matches: [{path: {value: /api}, headers: [{name: x-version, value: v1}]}], backendRefs: [{name: svc%d, port: 80}]}]}`, i, i))] = []gatewayv1.SectionName{"http"}
	}
	var matches string
	for i := range 128 {
		matches += fmt.Sprintf("{path: {value: /m%d}},", i)
	}
	attached[route(t, "big", "wide", 0, `{rules: [{matches: [`+matches+`]}]}`)] = []gatewayv1.SectionName{"http"}
	table := Build(resolvedInput(t, gw, attached))
	hosts := table.Listeners[0].Hosts
	if len(hosts) != 5001 {
		t.Fatalf("%d hosts, want 5,001", len(hosts))
	}
	if last := hosts[len(hosts)-1]; last.Hostname != "*" || len(last.Matches) != 128 {
		t.Errorf("host %s has %d matches, want * with 128", last.Hostname, len(last.Matches))
	}
}

// TestAHostAMoreSpecificListenerTakesIsLeftOut: requests go to the most specific
// listener on a port, so a host of a wider listener that a narrower one covers serves
// nothing; every listener keeps a host of its own hostname, matched or not.
func TestAHostAMoreSpecificListenerTakesIsLeftOut(t *testing.T) {
	gw := &gatewayv1.Gateway{}
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: c
  listeners:
  - {name: any, protocol: HTTP, port: 80}
  - {name: wildcard, protocol: HTTP, port: 80, hostname: "*.example.com"}
  - {name: exact, protocol: HTTP, port: 80, hostname: abc.example.com}
  - {name: elsewhere, protocol: HTTP, port: 8080, hostname: "*.example.com"}
`), gw); err != nil {
		t.Fatal(err)
	}
	r := route(t, "a", "r", 0, `{hostnames: [foo.example.com, abc.example.com, bar.test], rules: [{}]}`)
	in := Input{Gateway: gw, Listeners: listeners.Evaluate(listeners.Serves{}, gw.Spec.Listeners, nil),
		Routes: []RouteInput{{Route: r, Listeners: []gatewayv1.SectionName{"any", "elsewhere"}}}}
	table := Build(in)
	wants := [][]string{
		{"bar.test", "*"},
		{"*.example.com"},
		{"abc.example.com"},
		{"abc.example.com", "foo.example.com", "*.example.com"},
	}
	for i, want := range wants {
		if got := hostNames(table.Listeners[i]); !slices.Equal(got, want) {
			t.Errorf("listener %s hosts %v, want %v", table.Listeners[i].Name, got, want)
		}
	}
}

// TestListenerSetListeners: the listeners of the attached ListenerSets follow the
// Gateway's in the table, naming their ListenerSet, and a more specific one takes its
// hostname from the Gateway's wider listener on the port; those of a ListenerSet not
// attached are not there.
func TestListenerSetListeners(t *testing.T) {
	gw := &gatewayv1.Gateway{}
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: c
  allowedListeners: {namespaces: {from: All}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
`), gw); err != nil {
		t.Fatal(err)
	}
	serves := listeners.Serves{}.WithListenerSets()
	own := listeners.Evaluate(serves, gw.Spec.Listeners, nil)
	set := func(namespace, entries string) listeners.Set {
		ls := &gatewayv1.ListenerSet{}
		ls.Namespace, ls.Name = namespace, "tenant"
		if err := yaml.UnmarshalStrict([]byte(entries), &ls.Spec.Listeners); err != nil {
			t.Fatal(err)
		}
		return listeners.SetOf(ls, nil)
	}
	r := route(t, "infra", "r", 0, `{hostnames: [shop.example.com, other.example.com], rules: [{}]}`)
	in := Input{Gateway: gw, Listeners: own, Routes: []RouteInput{{Route: r, Listeners: []gatewayv1.SectionName{"http"}}},
		ListenerSets: listeners.EvaluateSets(serves, gw, own, []listeners.Set{
			set("team-a", `[{name: http, protocol: HTTP, port: 80, hostname: shop.example.com}]`),
			set("team-b", `[{name: https, protocol: HTTPS, port: 80}]`), // conflicts: not attached
		})}
	table := Build(in)
	if len(table.Listeners) != 2 {
		t.Fatalf("got %d listeners, want the Gateway's and team-a's", len(table.Listeners))
	}
	if l := table.Listeners[0]; l.ListenerSet != nil || !slices.Equal(hostNames(l), []string{"other.example.com", "*"}) {
		t.Errorf("the Gateway's listener: ListenerSet %v, hosts %v; want none, and shop.example.com left to team-a's listener", l.ListenerSet, hostNames(l))
	}
	l := table.Listeners[1]
	if l.ListenerSet == nil || *l.ListenerSet != (ObjectRef{Kind: "ListenerSet", Namespace: "team-a", Name: "tenant"}) || l.Name != "http" || !l.Valid {
		t.Errorf("team-a's listener: %+v", l)
	}
	if got := hostNames(l); !slices.Equal(got, []string{"shop.example.com"}) {
		t.Errorf("team-a's listener hosts %v, want its own hostname, with no route yet", got)
	}
}
