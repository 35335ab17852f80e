package routing

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/fuzzchoices"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
)

// What tenants' routes are made of here: names that tie, hostnames that meet the
// listeners' and each other's in every way, paths that prefix each other, and values
// that are not valid regular expressions (a file read offline has not been through the
// API server's validation).
var (
	fuzzNamespaces = []string{"team-a", "team-b"}
	fuzzNames      = []string{"r0", "r1", "r2"}
	fuzzHostnames  = []gatewayv1.Hostname{"a.shop.example", "*.shop.example", "x.a.shop.example", "shop.example", "*.example", "b.example"}
	fuzzPaths      = []string{"/", "/a", "/a/", "/ab", "/a/b", "^/a.*", "(", "/A"}
	fuzzPathTypes  = []*gatewayv1.PathMatchType{nil, new(gatewayv1.PathMatchExact), new(gatewayv1.PathMatchPathPrefix), new(gatewayv1.PathMatchRegularExpression)}
	fuzzHeaders    = []gatewayv1.HTTPHeaderName{"x-a", "X-A", "x-b"}
	fuzzValues     = []string{"1", "2", ".*", "("}
	fuzzMethods    = []*gatewayv1.HTTPMethod{nil, new(gatewayv1.HTTPMethodGet), new(gatewayv1.HTTPMethodPost)}
	fuzzListeners  = []gatewayv1.SectionName{"http", "shop", "broken"}
	fuzzFilters    = []gatewayv1.HTTPRouteFilter{
		{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier, RequestHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "x-a", Value: "set"}}, Remove: []string{"x-b"}}},
		{Type: gatewayv1.HTTPRouteFilterResponseHeaderModifier, ResponseHeaderModifier: &gatewayv1.HTTPHeaderFilter{Add: []gatewayv1.HTTPHeader{{Name: "x-r", Value: "1"}}}},
		{Type: gatewayv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gatewayv1.HTTPRequestRedirectFilter{Scheme: new("https"), StatusCode: new(301)}},
		{Type: gatewayv1.HTTPRouteFilterURLRewrite, URLRewrite: &gatewayv1.HTTPURLRewriteFilter{Path: &gatewayv1.HTTPPathModifier{Type: gatewayv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: new("/new")}}},
		{Type: gatewayv1.HTTPRouteFilterURLRewrite, URLRewrite: &gatewayv1.HTTPURLRewriteFilter{Hostname: new(gatewayv1.PreciseHostname("h.example")), Path: &gatewayv1.HTTPPathModifier{Type: gatewayv1.FullPathHTTPPathModifier, ReplaceFullPath: new("/full")}}},
	}
)

// fuzzRoute builds route i from the choices: its name, age, hostnames, and up to three
// rules of up to three matches, filters and backends each.
func fuzzRoute(c *fuzzchoices.Choices, i int) *gatewayv1.HTTPRoute {
	r := &gatewayv1.HTTPRoute{}
	r.Namespace, r.Name = fuzzchoices.From(c, fuzzNamespaces), fuzzchoices.From(c, fuzzNames)
	r.UID, r.Generation = types.UID(fmt.Sprintf("uid-%d", i)), 1
	r.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, c.Pick(3), 0, 0, time.UTC))
	for range c.Pick(3) {
		r.Spec.Hostnames = append(r.Spec.Hostnames, fuzzchoices.From(c, fuzzHostnames))
	}
	for range 1 + c.Pick(3) {
		var rule gatewayv1.HTTPRouteRule
		for range c.Pick(4) {
			rule.Matches = append(rule.Matches, fuzzMatch(c))
		}
		for range c.Pick(3) {
			filter := fuzzchoices.From(c, fuzzFilters)
			rule.Filters = append(rule.Filters, *filter.DeepCopy())
		}
		for k := range c.Pick(3) {
			ref := gatewayv1.HTTPBackendRef{}
			ref.Name, ref.Port = gatewayv1.ObjectName(fmt.Sprintf("svc-%d", k)), new(gatewayv1.PortNumber(80))
			if weight := c.Pick(4); weight < 3 {
				ref.Weight = new(int32(weight))
			}
			rule.BackendRefs = append(rule.BackendRefs, ref)
		}
		r.Spec.Rules = append(r.Spec.Rules, rule)
	}
	return r
}

// fuzzRoutes are up to n routes of fuzzRoute, one per namespace/name as the API server
// keeps them.
func fuzzRoutes(c *fuzzchoices.Choices, n int) []*gatewayv1.HTTPRoute {
	var out []*gatewayv1.HTTPRoute
	seen := map[string]bool{}
	for i := range n {
		r := fuzzRoute(c, i)
		if key := r.Namespace + "/" + r.Name; !seen[key] {
			seen[key] = true
			out = append(out, r)
		}
	}
	return out
}

// fuzzMatch is a match of a path, headers, a query parameter and a method, each maybe.
func fuzzMatch(c *fuzzchoices.Choices) gatewayv1.HTTPRouteMatch {
	var m gatewayv1.HTTPRouteMatch
	if kind := fuzzchoices.From(c, fuzzPathTypes); kind != nil || c.Pick(2) == 0 {
		m.Path = &gatewayv1.HTTPPathMatch{Type: kind, Value: new(fuzzchoices.From(c, fuzzPaths))}
	}
	for range c.Pick(3) {
		kind := new(gatewayv1.HeaderMatchExact)
		if c.Pick(3) == 0 {
			kind = new(gatewayv1.HeaderMatchRegularExpression)
		}
		m.Headers = append(m.Headers, gatewayv1.HTTPHeaderMatch{Type: kind, Name: fuzzchoices.From(c, fuzzHeaders), Value: fuzzchoices.From(c, fuzzValues)})
	}
	if c.Pick(3) == 0 {
		m.QueryParams = append(m.QueryParams, gatewayv1.HTTPQueryParamMatch{Name: "q", Value: fuzzchoices.From(c, fuzzValues)})
	}
	m.Method = fuzzchoices.From(c, fuzzMethods)
	return m
}

// fuzzGatewayYAML is the Gateway of the routes here: every listener takes routes of
// every namespace, and "broken" is not valid (its certificate is missing). Each is on a
// port of its own, so that no host of one is taken by a more specific listener
// (TestAHostAMoreSpecificListenerTakesIsLeftOut): every route accepted on a valid
// listener has a match there.
const fuzzGatewayYAML = `
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: c
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
  - {name: shop, protocol: HTTP, port: 8080, hostname: "*.shop.example", allowedRoutes: {namespaces: {from: All}}}
  - {name: broken, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: missing}]}, allowedRoutes: {namespaces: {from: All}}}
`

// fuzzServes is what the Gateway's class serves: both kinds of HTTP routes.
var fuzzServes = listeners.NewServes(nil, nil, []gatewayv1.Kind{listeners.HTTPRouteKind, listeners.GRPCRouteKind})

// fuzzListenerStatuses are the verdicts of the Gateway's listeners: every one valid but
// "broken", whose certificate is missing.
func fuzzListenerStatuses(gw *gatewayv1.Gateway) []listeners.Status {
	certificates := map[gatewayv1.SectionName][]listeners.CertificateRef{
		"broken": {{Kind: "Secret", Namespace: "infra", Name: "missing", Reason: gatewayv1.ListenerReasonInvalidCertificateRef}},
	}
	return listeners.Evaluate(fuzzServes, gw.Spec.Listeners, certificates)
}

// fuzzGateway is the Gateway of fuzzGatewayYAML.
func fuzzGateway(f *testing.F) *gatewayv1.Gateway {
	gw := &gatewayv1.Gateway{}
	if err := yaml.UnmarshalStrict([]byte(fuzzGatewayYAML), gw); err != nil {
		f.Fatal(err)
	}
	return gw
}

// fuzzInput gives each route a parentRef to the Gateway, naming one of its listeners
// or none, and attaches it as the Gateway API rules say (hostnames intersecting);
// every backendRef resolves but those the choices leave unresolved.
func fuzzInput(t *testing.T, c *fuzzchoices.Choices, gw *gatewayv1.Gateway, routes []*gatewayv1.HTTPRoute) Input {
	in := Input{Gateway: gw, Listeners: fuzzListenerStatuses(gw)}
	for _, r := range routes {
		ref := gatewayv1.ParentReference{Name: "web", Namespace: new(gatewayv1.Namespace("infra"))}
		if section := c.Pick(len(fuzzListeners) + 1); section < len(fuzzListeners) {
			ref.SectionName = &fuzzListeners[section]
		}
		r.Spec.ParentRefs = []gatewayv1.ParentReference{ref}
		attached := attach.Listeners(gw, fuzzServes, attach.RouteOf(r), nil)
		if len(attached) == 0 {
			continue
		}
		res, err := attach.ResolveBackendRefs(r, nil, func(string, string) (bool, error) { return c.Pick(4) != 0, nil })
		if err != nil {
			t.Fatal(err)
		}
		in.Routes = append(in.Routes, RouteInput{Route: r, Listeners: attached, BackendRefs: res.BackendRefs})
	}
	return in
}

// fuzzRequests are requests to every listener's port, on hosts the routes name and
// some they do not, down paths that the matches take and some they do not.
func fuzzRequests(c *fuzzchoices.Choices) []Request {
	hosts := []string{"a.shop.example", "x.a.shop.example", "shop.example", "b.example", "other.test", "A.SHOP.EXAMPLE."}
	paths := []string{"/", "/a", "/a/b", "/ab", "/a/?q=1", "/A", "/new/x", "/a//b"}
	var out []Request
	for range 1 + c.Pick(6) {
		req := Request{Scheme: "http", Port: fuzzchoices.From(c, []int32{80, 8080, 443, 9999}), Host: fuzzchoices.From(c, hosts), Path: fuzzchoices.From(c, paths), Headers: http.Header{}}
		if req.Port == 443 {
			req.Scheme = "https"
		}
		if c.Pick(2) == 0 {
			req.Method = http.MethodPost
		}
		for range c.Pick(3) {
			req.Headers.Add(string(fuzzchoices.From(c, fuzzHeaders)), fuzzchoices.From(c, fuzzValues))
		}
		out = append(out, req)
	}
	return out
}

// FuzzRouteTable builds the route table of tenants' routes, whatever they hold,
// attached as the rules say, and checks what the Gateway serves from it: every route
// accepted on a valid listener has a match there; the table does not depend on how it
// was computed (the same whatever order the routes come in, and the same with the
// Gateway's memo of earlier tables as without, through an edit of one route and the
// deletion of another); every request is answered, by a listener and a match of an
// accepted route attached to that listener, or by none.
func FuzzRouteTable(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x03\x00\x00\x00\x01\x00\x02\x01\x02\x00\x01\x03\x02\x00\x01\x01\x02\x00\x00\x01\x01\x00\x01\x00\x00\x02"))
	f.Add([]byte("\x05\x01\x02\x01\x02\x05\x03\x02\x03\x03\x01\x03\x00\x02\x02\x01\x00\x03\x02\x01\x01\x01\x02\x03\x00\x01\x00\x01\x01\x02\x02\x03\x01\x00\x02\x01\x02\x00\x01\x02\x03"))
	f.Add([]byte("\x02\x00\x00\x01\x00\x02\x03\x03\x03\x04\x00\x03\x03\x06\x02\x02\x02\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x00\x01\x02\x00\x01\x00\x00\x02\x02"))
	gw := fuzzGateway(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := fuzzchoices.New(data)
		in := fuzzInput(t, c, gw, fuzzRoutes(c, 1+c.Pick(6)))
		if len(in.Routes) == 0 {
			return
		}
		table := Build(in)
		servesEveryAcceptedRoute(t, table)

		reversed := in
		reversed.Routes = slices.Clone(in.Routes)
		slices.Reverse(reversed.Routes)
		if !reflect.DeepEqual(Build(reversed), table) {
			t.Fatal("the table depends on the order the routes come in")
		}

		memo := &MatchMemo{}
		memoized := in
		memoized.Memo = memo
		if !reflect.DeepEqual(Build(memoized), table) {
			t.Fatal("the first table with a memo differs from the one without")
		}
		// One route edited (a new generation with a new match, its hostnames kept, so it
		// attaches where it did), one deleted: the memo's next table is the one computed
		// afresh.
		editedAt := c.Pick(len(in.Routes))
		edited := in.Routes[editedAt].Route.(*gatewayv1.HTTPRoute).DeepCopy()
		edited.Generation++
		edited.Spec.Rules[0].Matches = append(edited.Spec.Rules[0].Matches, fuzzMatch(c))
		next := memoized
		next.Routes = nil
		gone := c.Pick(len(in.Routes) + 1) // len(in.Routes) deletes none
		for i, r := range memoized.Routes {
			switch {
			case i == editedAt:
				r.Route = edited
			case i == gone:
				continue
			}
			next.Routes = append(next.Routes, r)
		}
		fresh := next
		fresh.Memo = nil
		want := Build(fresh)
		if !reflect.DeepEqual(Build(next), want) {
			t.Fatal("after an edit and a deletion, the table with a memo differs from the one without")
		}
		servesEveryAcceptedRoute(t, want)

		accepted := map[ObjectRef][]string{}
		for _, v := range want.Routes {
			if v.Accepted {
				accepted[v.ObjectRef] = v.Listeners
			}
		}
		for _, req := range fuzzRequests(c) {
			answer := Serve(want, req)
			if answer.Response.Status < 200 || answer.Response.Status > 599 {
				t.Fatalf("%+v: answered with status %d", req, answer.Response.Status)
			}
			if answer.Route == nil {
				continue
			}
			attachedTo, ok := accepted[*answer.Route]
			if !ok {
				t.Fatalf("%+v: taken by %v, which is not an accepted route", req, *answer.Route)
			}
			if !slices.Contains(attachedTo, answer.Listener) {
				t.Fatalf("%+v: taken on listener %q by %v, attached to %v", req, answer.Listener, *answer.Route, attachedTo)
			}
		}
	})
}

// servesEveryAcceptedRoute fails t unless every route the table says is accepted, on a
// listener that is valid, has a match there: a route that says Accepted=True is in
// what the Gateway serves.
func servesEveryAcceptedRoute(t *testing.T, table *Table) {
	t.Helper()
	served := map[ObjectRef]map[string]bool{}
	for _, l := range table.Listeners {
		for _, h := range l.Hosts {
			refs := make([]ObjectRef, 0, len(h.Matches)+len(h.GRPCMatches))
			for _, m := range h.Matches {
				refs = append(refs, m.Route)
			}
			for _, m := range h.GRPCMatches {
				refs = append(refs, m.Route)
			}
			for _, ref := range refs {
				if served[ref] == nil {
					served[ref] = map[string]bool{}
				}
				served[ref][l.Name] = true
			}
		}
	}
	for _, v := range table.Routes {
		if !v.Accepted {
			continue
		}
		for _, l := range table.Listeners {
			if l.Valid && slices.Contains(v.Listeners, l.Name) && !served[v.ObjectRef][l.Name] {
				t.Fatalf("route %s/%s is accepted on listener %s, which serves no match of it", v.Namespace, v.Name, l.Name)
			}
		}
	}
}

// FuzzAdmit bounds tenants' routes, whatever they hold, by small limits and checks what
// Gateway-wide bounds promise: the routes refused are the newest (every one at or after
// the cutoff in admission order, none before it), those served fit every bound, and the
// first refused would not have fit beside them; the verdicts do not depend on the order
// the routes come in.
func FuzzAdmit(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x05\x01\x02\x01\x02\x05\x03\x02\x03\x03\x01\x03\x00\x02\x02\x01\x00\x03\x02\x01\x01\x01\x02\x03\x00\x01\x00\x01\x01\x02\x02\x03\x01\x00\x02\x01\x02\x00\x01\x02\x03"))
	f.Add([]byte("\x05\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x01\x02\x01\x03"))
	gw := fuzzGateway(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := fuzzchoices.New(data)
		in := fuzzInput(t, c, gw, fuzzRoutes(c, 1+c.Pick(6)))
		limits := Limits{Routes: 1 + c.Pick(6), Bytes: fuzzchoices.From(c, []int{200, 600, 1500, 1 << 20}), Entries: fuzzchoices.From(c, []int{1, 3, 8, 1 << 20})}

		forward := slices.Clone(in.Routes)
		cutoff := Admit(forward, limits)
		reversed := slices.Clone(in.Routes)
		slices.Reverse(reversed)
		if again := Admit(reversed, limits); !reflect.DeepEqual(again, cutoff) {
			t.Fatalf("the cutoff depends on the order the routes come in: %+v, then %+v", cutoff, again)
		}
		slices.Reverse(reversed)
		if !reflect.DeepEqual(reversed, forward) {
			t.Fatal("the verdicts depend on the order the routes come in")
		}

		slices.SortFunc(forward, func(a, b RouteInput) int {
			return admissionOrder(admissionKeyOf(a.Route), admissionKeyOf(b.Route))
		})
		served, bytes, entries := 0, 0, 0
		for i := range forward {
			r := &forward[i]
			refused := r.Refusal != nil
			if refused != (cutoff != nil && cutoff.Refuses(r.Route)) {
				t.Fatalf("route %s/%s: refused %v, against the cutoff %+v", r.Route.GetNamespace(), r.Route.GetName(), refused, cutoff)
			}
			if refused && r.Refusal.Reason != ReasonRouteLimit {
				t.Fatalf("route %s/%s refused for %s", r.Route.GetNamespace(), r.Route.GetName(), r.Refusal.Reason)
			}
			facts := r.facts()
			if refused {
				if i != served {
					t.Fatalf("route %s/%s is served after a refused one", r.Route.GetNamespace(), r.Route.GetName())
				}
				if served+1 <= limits.Routes && bytes+facts.SpecBytes <= limits.Bytes && entries+tableEntries(r, facts) <= limits.Entries {
					t.Fatalf("route %s/%s is refused though it fits beside the %d served", r.Route.GetNamespace(), r.Route.GetName(), served)
				}
				break
			}
			served, bytes, entries = served+1, bytes+facts.SpecBytes, entries+tableEntries(r, facts)
		}
		if served > limits.Routes || bytes > limits.Bytes || entries > limits.Entries {
			t.Fatalf("%d routes served, %d bytes, %d entries: past %+v", served, bytes, entries, limits)
		}
		for _, r := range forward[served:] {
			if r.Refusal == nil {
				t.Fatalf("route %s/%s is served after a refused one", r.Route.GetNamespace(), r.Route.GetName())
			}
		}
	})
}

// fuzzGRPCRoute builds GRPCRoute i from the choices: its name, age and hostnames, and one
// rule of up to two matches by method.
func fuzzGRPCRoute(c *fuzzchoices.Choices, i int) *gatewayv1.GRPCRoute {
	r := &gatewayv1.GRPCRoute{}
	r.Namespace, r.Name = fuzzchoices.From(c, fuzzNamespaces), fuzzchoices.From(c, fuzzNames)
	r.UID, r.Generation = types.UID(fmt.Sprintf("grpc-uid-%d", i)), 1
	r.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, c.Pick(3), 0, 0, time.UTC))
	for range c.Pick(3) {
		r.Spec.Hostnames = append(r.Spec.Hostnames, fuzzchoices.From(c, fuzzHostnames))
	}
	var rule gatewayv1.GRPCRouteRule
	for range c.Pick(3) {
		rule.Matches = append(rule.Matches, gatewayv1.GRPCRouteMatch{Method: &gatewayv1.GRPCMethodMatch{Service: new(fuzzchoices.From(c, []string{"shop.Cart", "shop.Pay"}))}})
	}
	rule.BackendRefs = []gatewayv1.GRPCBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{Name: "grpc", Port: new(gatewayv1.PortNumber(9000))}}}}
	r.Spec.Rules = []gatewayv1.GRPCRouteRule{rule}
	return r
}

// FuzzKindConflicts attaches HTTPRoutes and GRPCRoutes, whatever they hold, to one
// Gateway and checks the rule of the GRPCRoute specification: of an HTTPRoute and a
// GRPCRoute sharing a hostname on a listener, the newer is refused, so no two routes
// the table serves share one; a route is refused only for an older route of the other
// kind; the verdicts do not depend on the order the routes come in, nor does the table.
func FuzzKindConflicts(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x02\x03\x00\x00\x01\x00\x01\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00\x01\x00\x00\x01\x03\x01\x00\x02\x01\x00\x01\x00\x03"))
	f.Add([]byte("\x03\x02\x01\x01\x02\x01\x02\x00\x01\x03\x00\x00\x01\x01\x02\x00\x01\x03\x02\x00\x01\x01\x01\x00\x02\x00\x01\x02\x01\x02\x01\x00\x00\x02\x03"))
	gw := fuzzGateway(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := fuzzchoices.New(data)
		in := fuzzInput(t, c, gw, fuzzRoutes(c, 1+c.Pick(4)))
		seen := map[string]bool{}
		for i := range 1 + c.Pick(4) {
			r := fuzzGRPCRoute(c, i)
			key := r.Namespace + "/" + r.Name
			if seen[key] {
				continue // one GRPCRoute per namespace/name; an HTTPRoute may have it too
			}
			seen[key] = true
			r.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "web", Namespace: new(gatewayv1.Namespace("infra"))}}
			attached := attach.Listeners(gw, fuzzServes, attach.RouteOf(r), nil)
			if len(attached) == 0 {
				continue
			}
			res, err := attach.ResolveBackendRefs(r, nil, func(string, string) (bool, error) { return true, nil })
			if err != nil {
				t.Fatal(err)
			}
			in.Routes = append(in.Routes, RouteInput{Route: r, Listeners: attached, BackendRefs: res.BackendRefs})
		}
		hostnames := ListenerHostnames(in)
		verdicts := slices.Clone(in.Routes)
		RefuseKindConflicts(verdicts, hostnames)
		reversed := slices.Clone(in.Routes)
		slices.Reverse(reversed)
		RefuseKindConflicts(reversed, hostnames)
		slices.Reverse(reversed)
		if !reflect.DeepEqual(reversed, verdicts) {
			t.Fatal("the verdicts depend on the order the routes come in")
		}

		hostsOf := func(r *RouteInput, l gatewayv1.SectionName) []string {
			return effectiveHostnames(hostnames[l], routes.Hostnames(r.Route))
		}
		shares := func(a, b *RouteInput) (gatewayv1.SectionName, bool) {
			for _, l := range a.Listeners {
				if !slices.Contains(b.Listeners, l) {
					continue
				}
				if _, ok := sharedHostname(hostsOf(a, l), hostsOf(b, l)); ok {
					return l, true
				}
			}
			return "", false
		}
		for i := range verdicts {
			a := &verdicts[i]
			_, aGRPC := a.Route.(*gatewayv1.GRPCRoute)
			refusedFor := false
			for j := range verdicts {
				b := &verdicts[j]
				if _, bGRPC := b.Route.(*gatewayv1.GRPCRoute); aGRPC == bGRPC {
					continue
				}
				l, share := shares(a, b)
				if !share {
					continue
				}
				if a.Refusal == nil && b.Refusal == nil {
					t.Fatalf("%s %s/%s and %s %s/%s share a hostname on listener %s, and both are accepted",
						a.facts().Ref.Kind, a.Route.GetNamespace(), a.Route.GetName(), b.facts().Ref.Kind, b.Route.GetNamespace(), b.Route.GetName(), l)
				}
				if admissionOrder(admissionKeyOf(b.Route), admissionKeyOf(a.Route)) < 0 {
					refusedFor = true
				}
			}
			if a.Refusal != nil && a.Refusal.Reason == ReasonHostnameConflict && !refusedFor {
				t.Fatalf("%s/%s is refused, yet no older route of the other kind shares a hostname with it", a.Route.GetNamespace(), a.Route.GetName())
			}
		}

		table := Build(Input{Gateway: gw, Listeners: fuzzListenerStatuses(gw), Routes: verdicts})
		servesEveryAcceptedRoute(t, table)
		if !reflect.DeepEqual(Build(Input{Gateway: gw, Listeners: fuzzListenerStatuses(gw), Routes: reversed}), table) {
			t.Fatal("the table of both kinds depends on the order the routes come in")
		}
	})
}
