package routing

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
)

// serveGateway has a catch-all HTTP listener, two narrower ones on the same port, an
// HTTPS listener and one on 8080 whose certificate is missing.
const serveGateway = `
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: c
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: wild, protocol: HTTP, port: 80, hostname: "*.wild.example"}
  - {name: exact, protocol: HTTP, port: 80, hostname: a.wild.example}
  - {name: secure, protocol: HTTPS, port: 443, hostname: secure.example, tls: {certificateRefs: [{name: good}]}}
  - {name: broken, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: missing}]}}
`

// serveRoutes are the routes of the Gateway API's conformance tests for matching,
// filters and backends, attached to every listener.
var serveRoutes = map[string]string{
	"matching": `{rules: [
	  {matches: [{path: {type: PathPrefix, value: /}}], backendRefs: [{name: v1, port: 8080}]},
	  {matches: [{path: {type: PathPrefix, value: /v2}}, {headers: [{name: version, value: two}]}], backendRefs: [{name: v2, port: 8080}]},
	  {matches: [{path: {type: Exact, value: /exact}}], backendRefs: [{name: v3, port: 8080}]},
	  {matches: [{path: {type: RegularExpression, value: "/re/[0-9]+"}}], backendRefs: [{name: v3, port: 8080}]},
	  {matches: [{path: {value: /method}, method: POST}], backendRefs: [{name: v2, port: 8080}]},
	  {matches: [{path: {value: /q}, queryParams: [{name: animal, value: whale}]}], backendRefs: [{name: v2, port: 8080}]},
	  {matches: [{path: {value: /h}, headers: [{name: X-Color, type: RegularExpression, value: "bl(ue|ack)"}]}], backendRefs: [{name: v2, port: 8080}]}]}`,
	"rewrite": `{rules: [
	  {matches: [{path: {value: /prefix/one}}], filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /one}}}], backendRefs: [{name: v1, port: 8080}]},
	  {matches: [{path: {value: /strip-prefix}}], filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /}}}], backendRefs: [{name: v1, port: 8080}]},
	  {matches: [{path: {value: /full/one}}], filters: [{type: URLRewrite, urlRewrite: {hostname: one.example, path: {type: ReplaceFullPath, replaceFullPath: /one}}}], backendRefs: [{name: v1, port: 8080}]},
	  {matches: [{path: {value: /headers}}], filters: [{type: RequestHeaderModifier, requestHeaderModifier: {
	     set: [{name: X-Header-Set, value: set-overwrites-values}], add: [{name: X-Header-Add, value: add-appends-values}], remove: [X-Header-Remove]}},
	     {type: ResponseHeaderModifier, responseHeaderModifier: {set: [{name: X-Resp-Set, value: "1"}], add: [{name: X-Resp-Add, value: "2"}], remove: [X-Resp-Remove]}}],
	   backendRefs: [{name: v1, port: 8080}]}]}`,
	"redirect": `{rules: [
	  {matches: [{path: {value: /scheme}}], filters: [{type: RequestRedirect, requestRedirect: {scheme: https}}]},
	  {matches: [{path: {value: /host}}], filters: [{type: RequestRedirect, requestRedirect: {hostname: example.org, statusCode: 301}}]},
	  {matches: [{path: {value: /port}}], filters: [{type: RequestRedirect, requestRedirect: {port: 8083}}]},
	  {matches: [{path: {value: /scheme-and-port}}], filters: [{type: RequestRedirect, requestRedirect: {scheme: https, port: 8443}}]},
	  {matches: [{path: {value: /old}}], filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /new}}}]}]}`,
	"cors": `{rules: [{matches: [{path: {value: /cors}}], filters: [{type: CORS, cors: {
	    allowOrigins: ["https://www.foo.com", "https://*.bar.com"], allowMethods: [GET, OPTIONS], allowHeaders: [x-header-1, x-header-2],
	    exposeHeaders: [x-header-3], allowCredentials: true, maxAge: 3600}}], backendRefs: [{name: v1, port: 8080}]}]}`,
	"backends": `{rules: [
	  {matches: [{path: {value: /weights}}], backendRefs: [{name: v1, port: 8080, weight: 70}, {name: v2, port: 8080, weight: 30}, {name: v3, port: 8080, weight: 0}]},
	  {matches: [{path: {value: /invalid}}], backendRefs: [{name: missing, port: 8080}]},
	  {matches: [{path: {value: /half-invalid}}], backendRefs: [{name: v1, port: 8080}, {name: missing, port: 8080}]},
	  {matches: [{path: {value: /none}}]},
	  {matches: [{path: {value: /per-backend}}], backendRefs: [
	    {name: v1, port: 8080, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: X-Backend, value: v1}]}}]},
	    {name: v2, port: 8080}]}]}`,
	"hosts": `{hostnames: [a.wild.example, b.wild.example, secure.example], rules: [{matches: [{path: {value: /host}}], backendRefs: [{name: v2, port: 8080}]}]}`,
}

// serveTable is the table of serveGateway with the routes named, every route when none is.
func serveTable(t *testing.T, only ...string) *Table {
	t.Helper()
	gw := &gatewayv1.Gateway{}
	if err := yaml.UnmarshalStrict([]byte(serveGateway), gw); err != nil {
		t.Fatal(err)
	}
	certificates := map[gatewayv1.SectionName][]listeners.CertificateRef{
		"secure": {{Kind: "Secret", Namespace: "infra", Name: "good", Reason: gatewayv1.ListenerReasonResolvedRefs}},
		"broken": {{Kind: "Secret", Namespace: "infra", Name: "missing", Reason: gatewayv1.ListenerReasonInvalidCertificateRef}},
	}
	in := Input{Gateway: gw, Listeners: listeners.Evaluate(listeners.Serves{}, gw.Spec.Listeners, certificates)}
	names := []gatewayv1.SectionName{"http", "wild", "exact", "secure", "broken"}
	for name, spec := range serveRoutes {
		if len(only) > 0 && !slices.Contains(only, name) {
			continue
		}
		r := route(t, "infra", name, 0, spec)
		res, err := attach.ResolveBackendRefs(r, nil, func(_, service string) (bool, error) { return service != "missing", nil })
		if err != nil {
			t.Fatal(err)
		}
		in.Routes = append(in.Routes, RouteInput{Route: r, Listeners: names, BackendRefs: res.BackendRefs})
	}
	return Build(in)
}

// want is what a case checks of an answer; zero fields are not checked.
type want struct {
	status     int
	listener   string
	route      string // name/rule
	backends   []string
	path, host string
	headers    map[string]string // of the forwarded request; "" for absent
	response   map[string]string // of the Gateway's own headers; "" for absent
}

func TestServeAnswersAsTheGatewayAPISays(t *testing.T) {
	table := serveTable(t)
	get := func(host, path string, headers ...string) Request {
		h := http.Header{}
		for i := 0; i+1 < len(headers); i += 2 {
			h.Add(headers[i], headers[i+1])
		}
		return Request{Method: "GET", Scheme: "http", Host: host, Port: 80, Path: path, Headers: h}
	}
	with := func(r Request, change func(*Request)) Request { change(&r); return r }
	tests := []struct {
		name string
		req  Request
		want want
	}{
		{"a path under no other prefix goes to the catch-all", get("x.example", "/anything"),
			want{status: 200, listener: "http", route: "matching/0", backends: []string{"v1"}, path: "/anything"}},
		{"a prefix takes its own path", get("x.example", "/v2"), want{route: "matching/1", backends: []string{"v2"}}},
		{"a prefix takes the paths below it", get("x.example", "/v2/example"), want{route: "matching/1"}},
		{"a prefix does not take a longer segment", get("x.example", "/v2example"), want{route: "matching/0"}},
		{"a header match takes a request on any path", get("x.example", "/x", "Version", "two"), want{route: "matching/1"}},
		{"header names match whatever their case", get("x.example", "/x", "VERSION", "two"), want{route: "matching/1"}},
		{"header values are exact", get("x.example", "/x", "version", "Two"), want{route: "matching/0"}},
		{"an exact path takes only itself", get("x.example", "/exact"), want{route: "matching/2", backends: []string{"v3"}}},
		{"an exact path does not take a trailing slash", get("x.example", "/exact/"), want{route: "matching/0"}},
		{"a regular expression matches the whole path", get("x.example", "/re/42"), want{route: "matching/3"}},
		{"a regular expression does not match a part of the path", get("x.example", "/re/42/x"), want{route: "matching/0"}},
		{"a method match takes its method", with(get("x.example", "/method"), func(r *Request) { r.Method = "POST" }), want{route: "matching/4"}},
		{"a method match leaves other methods to the next match", get("x.example", "/method"), want{route: "matching/0"}},
		{"a query parameter match takes its value", get("x.example", "/q?animal=whale"), want{route: "matching/5", path: "/q?animal=whale"}},
		{"a query parameter of another value falls through", get("x.example", "/q?animal=dolphin"), want{route: "matching/0"}},
		{"a header regular expression matches the whole value", get("x.example", "/h", "x-color", "black"), want{route: "matching/6"}},

		{"the most specific listener hostname takes the request", get("a.wild.example", "/host"), want{listener: "exact", route: "hosts/0", backends: []string{"v2"}}},
		{"a wildcard listener takes the names below it", get("b.wild.example", "/host"), want{listener: "wild", route: "hosts/0"}},
		{"a wildcard listener serves the routes without hostnames below it", get("c.wild.example", "/host"), want{status: 301, listener: "wild", route: "redirect/1"}},
		{"the host header's case does not matter", get("A.Wild.Example", "/host"), want{listener: "exact", route: "hosts/0"}},
		{"an exact route hostname beats the catch-all's", get("secure.example", "/host"), want{listener: "http", route: "hosts/0"}},
		{"https goes to the listener whose hostname is the SNI", with(get("secure.example", "/host"), func(r *Request) { r.Scheme, r.Port = "https", 443 }),
			want{status: 200, listener: "secure", route: "hosts/0"}},
		{"https for another name finds no listener", with(get("other.example", "/"), func(r *Request) { r.Scheme, r.Port = "https", 443 }),
			want{status: 404, listener: ""}},
		{"a listener whose certificate is missing takes nothing", with(get("x.example", "/"), func(r *Request) { r.Scheme, r.Port = "https", 8443 }),
			want{status: 404, listener: ""}},
		{"the backend receives the Host with a port that is not the scheme's", with(get("x.example", "/"), func(r *Request) { r.Port = 8080 }), want{host: "x.example:8080"}},
		{"the backend receives the Host as the client sent it", with(get("x.example", "/"), func(r *Request) { r.Authority = "x.example:1234" }), want{host: "x.example:1234"}},
		{"a port without a listener takes nothing", with(get("x.example", "/"), func(r *Request) { r.Port = 9999 }), want{status: 404, listener: ""}},

		{"ReplacePrefixMatch replaces the matched prefix", get("x.example", "/prefix/one/two"), want{route: "rewrite/0", path: "/one/two"}},
		{"ReplacePrefixMatch with / strips the prefix", get("x.example", "/strip-prefix/three"), want{path: "/three"}},
		{"ReplacePrefixMatch with / on the prefix itself leaves /", get("x.example", "/strip-prefix"), want{path: "/"}},
		{"ReplacePrefixMatch keeps a trailing slash and the query", get("x.example", "/prefix/one/?a=b"), want{path: "/one/?a=b"}},
		{"ReplaceFullPath and a hostname rewrite", get("x.example", "/full/one/two"), want{route: "rewrite/2", path: "/one", host: "one.example"}},
		{"RequestHeaderModifier sets, adds and removes, names in any case",
			get("x.example", "/headers", "x-header-set", "some-other-value", "X-Header-Add", "original", "x-header-remove", "gone", "X-Kept", "kept"),
			want{route: "rewrite/3", headers: map[string]string{"X-Header-Set": "set-overwrites-values", "X-Header-Add": "original,add-appends-values", "X-Header-Remove": "", "X-Kept": "kept"}}},

		{"a scheme redirect goes to https on 443, the port left out", get("x.example", "/scheme?x=1"),
			want{status: 302, route: "redirect/0", response: map[string]string{"Location": "https://x.example/scheme?x=1"}}},
		{"a hostname redirect with its status keeps the listener's port", get("x.example", "/host"),
			want{status: 301, response: map[string]string{"Location": "http://example.org/host"}}},
		{"a port redirect names the port", get("x.example", "/port"), want{status: 302, response: map[string]string{"Location": "http://x.example:8083/port"}}},
		{"a scheme and port redirect names both", get("x.example", "/scheme-and-port"), want{response: map[string]string{"Location": "https://x.example:8443/scheme-and-port"}}},
		{"a path prefix redirect replaces the prefix", get("x.example", "/old/page"), want{status: 302, backends: []string{}, response: map[string]string{"Location": "http://x.example/new/page"}}},
		{"a redirect on https leaves out port 443", with(get("secure.example", "/old"), func(r *Request) { r.Scheme, r.Port = "https", 443 }),
			want{status: 302, response: map[string]string{"Location": "https://secure.example/new"}}},

		{"a preflight from an allowed origin is answered by the Gateway", with(get("x.example", "/cors", "Origin", "https://www.foo.com",
			"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "x-header-1"), func(r *Request) { r.Method = "OPTIONS" }),
			want{status: 200, route: "cors/0", backends: []string{}, response: map[string]string{
				"Access-Control-Allow-Origin": "https://www.foo.com", "Access-Control-Allow-Methods": "GET, OPTIONS",
				"Access-Control-Allow-Headers": "x-header-1, x-header-2", "Access-Control-Expose-Headers": "x-header-3",
				"Access-Control-Max-Age": "3600", "Access-Control-Allow-Credentials": "true"}}},
		{"a preflight from an origin matching a wildcard is allowed", with(get("x.example", "/cors", "Origin", "https://xpto.www.bar.com",
			"Access-Control-Request-Method", "GET"), func(r *Request) { r.Method = "OPTIONS" }),
			want{status: 200, response: map[string]string{"Access-Control-Allow-Origin": "https://xpto.www.bar.com", "Access-Control-Allow-Headers": ""}}},
		{"a preflight from another origin gets no CORS headers", with(get("x.example", "/cors", "Origin", "https://foobar.com",
			"Access-Control-Request-Method", "GET"), func(r *Request) { r.Method = "OPTIONS" }),
			want{status: 200, backends: []string{}, response: map[string]string{"Access-Control-Allow-Origin": ""}}},
		{"a simple request from an allowed origin goes to the backend with CORS headers", get("x.example", "/cors", "Origin", "https://www.foo.com"),
			want{status: 200, backends: []string{"v1"}, response: map[string]string{"Access-Control-Allow-Origin": "https://www.foo.com", "Access-Control-Max-Age": ""}}},

		{"weights are the backendRefs', a weight of 0 takes nothing", get("x.example", "/weights"), want{status: 200, backends: []string{"v1:70", "v2:30"}}},
		{"a rule whose only backend does not resolve answers 500", get("x.example", "/invalid"), want{status: 500, backends: []string{}}},
		{"a rule with one valid backend forwards to it", get("x.example", "/half-invalid"), want{status: 200, backends: []string{"v1"}}},
		{"a rule without backendRefs or redirect answers 500", get("x.example", "/none"), want{status: 500, backends: []string{}}},
		{"a backend's own filters change only its request", get("x.example", "/per-backend"), want{status: 200, backends: []string{"v1+", "v2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Serve(table, tt.req)
			check(t, a, tt.want)
		})
	}
}

func check(t *testing.T, a Answer, w want) {
	t.Helper()
	if w.status != 0 && a.Response.Status != w.status {
		t.Errorf("status %d, want %d (notes: %v)", a.Response.Status, w.status, a.Notes)
	}
	if (w.listener != "" || w.status == 404) && a.Listener != w.listener {
		t.Errorf("listener %q, want %q (notes: %v)", a.Listener, w.listener, a.Notes)
	}
	if w.route != "" {
		got := "none"
		if a.Route != nil {
			got = a.Route.Name + "/" + string(rune('0'+a.Rule))
		}
		if got != w.route {
			t.Errorf("route %s, want %s (notes: %v)", got, w.route, a.Notes)
		}
	}
	if w.backends != nil {
		got := []string{}
		for _, b := range a.Backends {
			name := b.Name
			if slices.ContainsFunc(w.backends, func(s string) bool { return strings.Contains(s, ":") }) {
				name += ":" + string(rune('0'+b.Weight/10)) + "0"
			}
			if b.Request != nil {
				name += "+"
			}
			got = append(got, name)
		}
		if !slices.Equal(got, w.backends) {
			t.Errorf("backends %v, want %v (notes: %v)", got, w.backends, a.Notes)
		}
	}
	if w.path != "" && a.Request.Path != w.path {
		t.Errorf("backend path %q, want %q", a.Request.Path, w.path)
	}
	if w.host != "" && a.Request.Host != w.host {
		t.Errorf("backend host %q, want %q", a.Request.Host, w.host)
	}
	for name, value := range w.headers {
		if got := strings.Join(a.Request.Headers.Values(name), ","); got != value {
			t.Errorf("backend header %s %q, want %q", name, got, value)
		}
	}
	for name, value := range w.response {
		if got := a.Response.Headers[name]; got != value {
			t.Errorf("response header %s %q, want %q", name, got, value)
		}
	}
}

func TestServeNamesTheResponseHeaderModifier(t *testing.T) {
	a := Serve(serveTable(t), Request{Scheme: "http", Host: "x.example", Port: 80, Path: "/headers"})
	m := a.Response.HeaderModifier
	if m.Set["X-Resp-Set"] != "1" || m.Add["X-Resp-Add"] != "2" || !slices.Equal(m.Remove, []string{"X-Resp-Remove"}) {
		t.Errorf("header modifier %+v", m)
	}
	if a.Request.Method != "GET" {
		t.Errorf("method %q, want GET by default", a.Request.Method)
	}
}

func TestServeAnswers404WhenNoMatchOfTheHostTakesTheRequest(t *testing.T) {
	table := serveTable(t, "hosts")
	a := Serve(table, Request{Scheme: "http", Host: "a.wild.example", Port: 80, Path: "/other"})
	check(t, a, want{status: 404, listener: "exact", backends: []string{}})
	if a.Route != nil || a.Rule != -1 || a.Match != -1 {
		t.Errorf("route %v rule %d match %d, want none", a.Route, a.Rule, a.Match)
	}
	// A less specific host of the listener does not take what the most specific one
	// does not: hosts are chosen before paths.
	a = Serve(table, Request{Scheme: "http", Host: "c.wild.example", Port: 80, Path: "/host"})
	check(t, a, want{status: 404, listener: "wild"})
}

func TestModifiedPathFollowsTheGatewayAPIPrefixTable(t *testing.T) {
	tests := []struct{ path, prefix, replacement, want string }{
		{"/foo/bar", "/foo", "/xyz", "/xyz/bar"},
		{"/foo/bar", "/foo", "/xyz/", "/xyz/bar"},
		{"/foo/bar", "/foo/", "/xyz", "/xyz/bar"},
		{"/foo/bar", "/foo/", "/xyz/", "/xyz/bar"},
		{"/foo", "/foo", "/xyz", "/xyz"},
		{"/foo/", "/foo", "/xyz", "/xyz/"},
		{"/foo/bar", "/foo", "", "/bar"},
		{"/foo/", "/foo", "", "/"},
		{"/foo", "/foo", "", "/"},
		{"/foo/", "/foo", "/", "/"},
		{"/foo", "/foo", "/", "/"},
		{"/foo/bar", "/", "/xyz", "/xyz/foo/bar"},
	}
	for _, tt := range tests {
		t.Run(tt.path+" under "+tt.prefix+" to "+tt.replacement, func(t *testing.T) {
			replacement := tt.replacement
			modifier := &gatewayv1.HTTPPathModifier{Type: gatewayv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: &replacement}
			if got := modifiedPath(modifier, PathMatch{Type: "PathPrefix", Value: tt.prefix}, tt.path); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A path with dot segments or repeated slashes is matched as sent, and the answer says
// what a data plane that normalizes paths would match instead; an ordinary path gets no
// such note.
func TestServeNotesThePathADataPlaneNormalizes(t *testing.T) {
	for path, normalized := range map[string]string{
		"/a/../admin":   "/admin",
		"/a//b/":        "/a/b/",
		"/./a/./b/..":   "/a/",
		"/../../x?q=1":  "/x",
		"//":            "/",
		"/a/b/..//c/.":  "/a/c/",
		"/shop/":        "",
		"/":             "",
		"/a.b/c..d/...": "",
	} {
		answer := Serve(&Table{}, Request{Host: "a.example", Port: 80, Scheme: "http", Path: path})
		note := slices.IndexFunc(answer.Notes, func(n string) bool { return strings.Contains(n, "normalizes paths") })
		switch {
		case normalized == "" && note >= 0:
			t.Errorf("%s: noted %q", path, answer.Notes[note])
		case normalized != "" && (note < 0 || !strings.HasSuffix(answer.Notes[note], "matches "+normalized+" instead")):
			t.Errorf("%s: notes %q, want one naming %s", path, answer.Notes, normalized)
		}
	}
}

// A normalized path starts with a slash, has no dot segment and no empty segment but a
// trailing slash, and is its own normalized path.
func FuzzNormalizedPath(f *testing.F) {
	for _, p := range []string{"/", "/a/../b", "//a//b/", "/./..", "/a/b/c/../../..", "/a.b/..c/"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		path = "/" + strings.TrimPrefix(path, "/")
		n := normalizedPath(path)
		inner := strings.TrimSuffix(n[1:], "/")
		if !strings.HasPrefix(n, "/") || slices.ContainsFunc(strings.Split(inner, "/"), func(s string) bool { return s == "." || s == ".." || s == "" && inner != "" }) {
			t.Fatalf("%q normalizes to %q", path, n)
		}
		if again := normalizedPath(n); again != n {
			t.Fatalf("%q normalizes to %q, and that to %q", path, n, again)
		}
	})
}
