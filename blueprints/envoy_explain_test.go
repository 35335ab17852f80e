package blueprints_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"

	"github.com/gatewright/gatewright/internal/routing"
)

// explainGateway is a Gateway of the example's class (testdata/example.in.yaml, whose
// certificate its HTTPS listeners use) with three HTTP listeners on one port, a general one and
// two with hostnames, so that listener isolation and host precedence both count; one on a
// port that is not HTTP's own, which a redirect keeps; and two HTTPS listeners on one
// port, one of them with a hostname, which Envoy tells apart by SNI.
const explainGateway = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: grid, namespace: team-a}
spec:
  gatewayClassName: envoy-public
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
  - {name: shop, protocol: HTTP, port: 80, hostname: "*.shop.example", allowedRoutes: {namespaces: {from: All}}}
  - {name: api, protocol: HTTP, port: 80, hostname: api.example, allowedRoutes: {namespaces: {from: All}}}
  - {name: alt, protocol: HTTP, port: 8080, allowedRoutes: {namespaces: {from: All}}}
  - {name: secure, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: wildcard-example-com}]}, allowedRoutes: {namespaces: {from: All}}}
  - {name: secure-shop, protocol: HTTPS, port: 443, hostname: "*.shop.example", tls: {certificateRefs: [{name: wildcard-example-com}]}, allowedRoutes: {namespaces: {from: All}}}
`

// explainRoutes are n HTTPRoutes of two namespaces drawn from random: hostnames that
// meet the listeners' and each other's, every kind of path match, headers, a query
// parameter and methods, creation times that tie; backends that resolve, that do not
// and that weigh nothing; redirects, rewrites of the host and path (prefix rewrites of
// every kind of replacement) and header modifiers.
func explainRoutes(random *rand.Rand, n int) string {
	pick := func(from ...string) string { return from[random.IntN(len(from))] }
	var b strings.Builder
	for i := range n {
		namespace := pick("team-a", "team-b")
		var hostnames []string
		for range random.IntN(3) {
			hostnames = append(hostnames, fmt.Sprintf("%q", pick("a.shop.example", "*.shop.example", "api.example", "b.example", "*.example")))
		}
		parent := "{name: grid, namespace: team-a}"
		if random.IntN(3) == 0 {
			parent = fmt.Sprintf("{name: grid, namespace: team-a, sectionName: %s}", pick("http", "shop", "api", "alt", "secure", "secure-shop"))
		}
		var rules []string
		for range 1 + random.IntN(2) {
			var matches []string
			for range random.IntN(3) {
				var parts []string
				switch random.IntN(4) {
				case 0:
					parts = append(parts, fmt.Sprintf("path: {type: Exact, value: %s}", pick("/", "/a", "/a/b", "/ab")))
				case 1:
					parts = append(parts, fmt.Sprintf("path: {type: PathPrefix, value: %s}", pick("/", "/a", "/a/", "/ab", "/a/b", "/v1")))
				case 2:
					parts = append(parts, fmt.Sprintf("path: {type: RegularExpression, value: %q}", pick("/a.*", "/v[0-9]/.*", ".*", "/A")))
				}
				if random.IntN(3) == 0 {
					parts = append(parts, pick("headers: [{name: x-a, value: '1'}]", "headers: [{type: RegularExpression, name: X-A, value: '[12]'}]", "headers: [{name: x-a, value: '1'}, {name: x-b, value: '1'}]"))
				}
				if random.IntN(4) == 0 {
					parts = append(parts, "queryParams: [{name: q, value: '1'}]")
				}
				if random.IntN(4) == 0 {
					parts = append(parts, "method: "+pick("GET", "POST"))
				}
				matches = append(matches, "{"+strings.Join(parts, ", ")+"}")
			}
			backends := fmt.Sprintf("{name: svc-%d, port: 8080}", i)
			switch random.IntN(6) {
			case 0: // a second backend, weighted, that may not exist
				backends += fmt.Sprintf(", {name: %s, port: 8080, weight: %d}", pick(fmt.Sprintf("svc-%d", i), "missing"), random.IntN(3))
			case 1:
				backends = "{name: missing, port: 8080}"
			case 2:
				backends = fmt.Sprintf("{name: svc-%d, port: 8080, weight: 0}", i)
			}
			filters := ""
			switch random.IntN(10) {
			case 4:
				filters = ", filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: X-A, value: set}], add: [{name: x-c, value: added}], remove: [x-b]}}, " +
					"{type: ResponseHeaderModifier, responseHeaderModifier: {set: [{name: x-r, value: '1'}], add: [{name: X-S, value: '2'}], remove: [x-t]}}]"
			case 3:
				filters = fmt.Sprintf(", filters: [{type: URLRewrite, urlRewrite: %s}]", pick("{hostname: h.example}", "{path: {type: ReplaceFullPath, replaceFullPath: /full}}", "{hostname: h.example, path: {type: ReplaceFullPath, replaceFullPath: /}}"))
			case 0:
				filters = fmt.Sprintf(", filters: [{type: RequestRedirect, requestRedirect: %s}]", pick(
					"{scheme: https, statusCode: 301}", "{hostname: h.example}", "{port: 8443}", "{port: 80}", "{scheme: http, port: 8080}", "{statusCode: 308}"))
				backends = ""
			case 1, 2: // ReplacePrefixMatch takes PathPrefix matches only
				var prefixes []string
				for range 1 + random.IntN(2) {
					prefixes = append(prefixes, fmt.Sprintf("{path: {type: PathPrefix, value: %s}}", pick("/", "/a", "/a/", "/ab", "/a/b")))
				}
				matches = prefixes
				replace := pick("/new", "/new/", "/", "")
				filters = fmt.Sprintf(", filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: %q}}}]", replace)
				if random.IntN(3) == 0 {
					filters = fmt.Sprintf(", filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplacePrefixMatch, replacePrefixMatch: %q}}}]", replace)
					backends = ""
				}
			}
			rules = append(rules, fmt.Sprintf("{matches: [%s], backendRefs: [%s]%s}", strings.Join(matches, ", "), backends, filters))
		}
		fmt.Fprintf(&b, `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r%d, namespace: %s, creationTimestamp: "2026-01-01T00:0%d:00Z"}
spec:
  parentRefs: [%s]
  hostnames: [%s]
  rules: [%s]
---
apiVersion: v1
kind: Service
metadata: {name: svc-%d, namespace: %s}
spec: {ports: [{port: 8080}]}
`, i, namespace, random.IntN(3), parent, strings.Join(hostnames, ", "), strings.Join(rules, ", "), i, namespace)
	}
	return b.String()
}

// TestEnvoyRoutesAsExplainRequestAnswers renders the shipped envoy-proxy blueprint for a
// Gateway of many routes and asks, for a grid of requests, which route Envoy's
// configuration sends each to (its virtual hosts and routes read as Envoy matches them)
// and which `gatewright explain request` answers (routing.Serve on the same route table):
// they must be the same match, or no match for both, and do the same with the request:
// answer it with the same status, redirect it to the same Location, or send the same
// host, path and headers to the same backends by the same weights, and change their
// answers' headers the same way. What explain request tells a tenant is then
// what the shipped data plane does.
func TestEnvoyRoutesAsExplainRequestAnswers(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			random := rand.New(rand.NewPCG(seed, 38))
			input := filepath.Join(t.TempDir(), "input.yaml")
			if err := os.WriteFile(input, []byte(explainGateway+explainRoutes(random, 40)), 0o600); err != nil {
				t.Fatal(err)
			}
			set := load(t, filepath.Join("envoy-proxy", "blueprint.yaml"), filepath.Join("envoy-proxy", "testdata", "example.in.yaml"), input)
			gw, err := set.Gateway("team-a", "grid")
			if err != nil {
				t.Fatal(err)
			}
			table, err := set.RouteTable(gw)
			if err != nil {
				t.Fatal(err)
			}
			text := envoyConfigs(t, set)["team-a/grid/envoy.yaml"]
			if _, err := checkEnvoyBootstrap(text); err != nil {
				t.Fatalf("Envoy would not load the configuration: %v", err)
			}
			var bootstrap bootstrapv3.Bootstrap
			if err := decodeEnvoyYAML(text, &bootstrap); err != nil {
				t.Fatal(err)
			}
			listeners := map[int32][]envoyChain{80: envoyChains(t, &bootstrap, "http-80"), 8080: envoyChains(t, &bootstrap, "http-8080"), 443: envoyChains(t, &bootstrap, "https-443")}

			matched := 0
			for port, chains := range listeners {
				scheme := "http"
				if port == 443 {
					scheme = "https"
				}
				for _, host := range []string{"a.shop.example", "x.y.shop.example", "api.example", "b.example", "other.test", "shop.example"} {
					for _, path := range []string{"/", "/a", "/a/", "/ab", "/a/b", "/v1/x", "/A", "/a?q=1", "/ab?q=2"} {
						for _, headers := range []http.Header{{}, {"X-A": {"1"}}, {"X-A": {"2"}}, {"X-A": {"1"}, "X-B": {"1"}}} {
							for _, method := range []string{http.MethodGet, http.MethodPost} {
								req := routing.Request{Method: method, Scheme: scheme, Host: host, Port: port, Path: path, Headers: headers}
								answer := routing.Serve(table, req)
								want := ""
								if answer.Route != nil {
									want = fmt.Sprintf("%s/%s/rule/%d/match/%d", answer.Route.Namespace, answer.Route.Name, answer.Rule, answer.Match)
									matched++
								}
								route := envoyRouteFor(envoyChainFor(chains, host), req)
								if got := route.GetName(); got != want {
									t.Fatalf("%s %s://%s:%d%s %v: Envoy takes route %q, explain request answers %q", method, scheme, host, port, path, headers, got, want)
								}
								if route == nil {
									continue
								}
								if got, want := envoyOutcome(route, req), explainOutcome(table, answer); got != want {
									t.Fatalf("%s %s://%s:%d%s %v, route %s: Envoy %s, explain request %s", method, scheme, host, port, path, headers, route.GetName(), got, want)
								}
							}
						}
					}
				}
			}
			if matched < 200 {
				t.Errorf("only %d of the requests matched a route: the grid checks too little", matched)
			}
		})
	}
}

// envoyChain is the route configuration of one filter chain of an Envoy listener, and
// the server names (SNI) it takes; none for a chain that takes any.
type envoyChain struct {
	serverNames []string
	config      *routev3.RouteConfiguration
}

// envoyChains are the filter chains of the Envoy listener named listener.
func envoyChains(t *testing.T, bootstrap *bootstrapv3.Bootstrap, listener string) []envoyChain {
	t.Helper()
	var out []envoyChain
	for _, l := range bootstrap.GetStaticResources().GetListeners() {
		if l.GetName() != listener {
			continue
		}
		for _, chain := range l.GetFilterChains() {
			for _, filter := range chain.GetFilters() {
				var hcm hcmv3.HttpConnectionManager
				if filter.GetTypedConfig().MessageIs(&hcm) {
					if err := filter.GetTypedConfig().UnmarshalTo(&hcm); err != nil {
						t.Fatal(err)
					}
					out = append(out, envoyChain{serverNames: chain.GetFilterChainMatch().GetServerNames(), config: hcm.GetRouteConfig()})
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no Envoy listener %s with an HTTP connection manager", listener)
	}
	return out
}

// envoyChainFor is the route configuration of the chain Envoy picks for a connection of
// server name sni: the chain of that name, else of the longest "*." suffix of it, else
// the chain that takes any; nil when none does (Envoy closes the connection).
func envoyChainFor(chains []envoyChain, sni string) *routev3.RouteConfiguration {
	var best *routev3.RouteConfiguration
	bestRank := -1
	for _, c := range chains {
		rank := -1
		if len(c.serverNames) == 0 {
			rank = 0
		}
		for _, name := range c.serverNames {
			switch {
			case name == sni:
				rank = 1 << 16
			case strings.HasPrefix(name, "*.") && len(sni) > len(name)-1 && strings.HasSuffix(sni, name[1:]):
				rank = max(rank, len(name))
			}
		}
		if rank > bestRank {
			best, bestRank = c.config, rank
		}
	}
	return best
}

// envoyRouteFor is the route Envoy takes for req in config, nil for none: the
// virtual host whose domain matches the Host most specifically (the same name, else the
// longest "*." suffix, else "*"), then the first of its routes that matches, as Envoy
// reads the matches the blueprint writes (path, prefix, path_separated_prefix and
// safe_regex on the path without its query; headers, :method included, and query
// parameters by exact value or whole RE2 match).
func envoyRouteFor(config *routev3.RouteConfiguration, req routing.Request) *routev3.Route {
	host := strings.ToLower(req.Host)
	var vhost *routev3.VirtualHost
	best := -1
	for _, v := range config.GetVirtualHosts() {
		for _, domain := range v.GetDomains() {
			rank := -1
			switch {
			case domain == "*":
				rank = 0
			case strings.HasPrefix(domain, "*"):
				if suffix := domain[1:]; len(host) > len(suffix) && strings.HasSuffix(host, suffix) {
					rank = len(suffix)
				}
			case strings.EqualFold(domain, host):
				rank = 1 << 16
			}
			if rank > best {
				vhost, best = v, rank
			}
		}
	}
	if vhost == nil {
		return nil
	}
	path, rawQuery, _ := strings.Cut(req.Path, "?")
	query, _ := url.ParseQuery(rawQuery)
	for _, route := range vhost.GetRoutes() {
		if envoyMatches(route.GetMatch(), req, path, query) {
			return route
		}
	}
	return nil
}

// envoyOutcome is what Envoy does with req on route: answer it with a status, redirect
// it to a Location, or send its host, path and headers as the route rewrites them to
// each share's cluster by weight, and change the answer's headers.
func envoyOutcome(route *routev3.Route, req routing.Request) string {
	path, _, _ := strings.Cut(req.Path, "?")
	prefix := route.GetMatch().GetPrefix()
	if p := route.GetMatch().GetPathSeparatedPrefix(); p != "" {
		prefix = p
	}
	switch {
	case route.GetDirectResponse() != nil:
		return fmt.Sprintf("answers %d", route.GetDirectResponse().GetStatus())
	case route.GetRedirect() != nil:
		return "redirects " + envoyLocation(route.GetRedirect(), req, rewritten(path, prefix, route.GetRedirect().GetPrefixRewrite(), route.GetRedirect().GetRegexRewrite()))
	}
	action := route.GetRoute()
	shares := []string{action.GetCluster() + " 1"}
	if action.GetCluster() == "" {
		shares = nil
		for _, c := range action.GetWeightedClusters().GetClusters() {
			shares = append(shares, fmt.Sprintf("%s %d", c.GetName(), c.GetWeight().GetValue()))
		}
	}
	host := req.Host
	if action.GetHostRewriteLiteral() != "" {
		host = action.GetHostRewriteLiteral()
	}
	// Envoy removes headers before it adds them.
	headers := req.Headers.Clone()
	for _, name := range route.GetRequestHeadersToRemove() {
		headers.Del(name)
	}
	for _, h := range route.GetRequestHeadersToAdd() {
		if h.GetAppendAction() == corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD {
			headers.Set(h.GetHeader().GetKey(), h.GetHeader().GetValue())
		} else {
			headers.Add(h.GetHeader().GetKey(), h.GetHeader().GetValue())
		}
	}
	response := []string{}
	for _, h := range route.GetResponseHeadersToAdd() {
		verb := "add"
		if h.GetAppendAction() == corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD {
			verb = "set"
		}
		response = append(response, verb+" "+strings.ToLower(h.GetHeader().GetKey())+"="+h.GetHeader().GetValue())
	}
	for _, name := range route.GetResponseHeadersToRemove() {
		response = append(response, "remove "+strings.ToLower(name))
	}
	return fmt.Sprintf("sends %s%s with %s to %s, answers with %s", host, rewritten(path, prefix, action.GetPrefixRewrite(), action.GetRegexRewrite()),
		headerList(headers), strings.Join(shares, ", "), sortedList(response))
}

// envoyLocation is the Location of Envoy's redirect r of req, whose path it rewrote to
// path: the scheme, host and port r says, else the request's (whose Host Envoy takes
// without a port: the blueprint has it strip them), a port of the new scheme's own left
// out when r changes the scheme, the path given, the query kept.
func envoyLocation(r *routev3.RedirectAction, req routing.Request, path string) string {
	scheme, host, port := req.Scheme, req.Host, ""
	if r.GetSchemeRedirect() != "" {
		scheme = r.GetSchemeRedirect()
	}
	if r.GetHostRedirect() != "" {
		host = r.GetHostRedirect()
	}
	if r.GetPortRedirect() != 0 {
		port = fmt.Sprintf(":%d", r.GetPortRedirect())
	}
	if r.GetSchemeRedirect() != "" && (scheme == "http" && port == ":80" || scheme == "https" && port == ":443") {
		port = ""
	}
	if r.GetPathRedirect() != "" {
		path = r.GetPathRedirect()
	}
	if _, query, ok := strings.Cut(req.Path, "?"); ok {
		path += "?" + query
	}
	return fmt.Sprintf("%s %s://%s%s%s", r.GetResponseCode(), scheme, host, port, path)
}

// rewritten is path (without its query) as Envoy rewrites it: prefix_rewrite replaces
// what the route's prefix matched, regex_rewrite each match of its pattern by its
// substitution (\1 the first group).
func rewritten(path, prefix, prefixRewrite string, regexRewrite *matcherv3.RegexMatchAndSubstitute) string {
	switch {
	case prefixRewrite != "":
		return prefixRewrite + strings.TrimPrefix(path, prefix)
	case regexRewrite != nil:
		re := regexp.MustCompile(regexRewrite.GetPattern().GetRegex())
		return re.ReplaceAllString(path, regexp.MustCompile(`\\(\d)`).ReplaceAllString(regexRewrite.GetSubstitution(), "$${${1}}"))
	}
	return path
}

// explainOutcome is the same of an answer of explain request on table, each backend
// named as the blueprint names its cluster, and the share of the requests answered 500
// (its backends do not resolve) as the blueprint's cluster for it.
func explainOutcome(table *routing.Table, a routing.Answer) string {
	switch status := a.Response.Status; {
	case status >= 300 && status < 400:
		return fmt.Sprintf("redirects %s %s", routev3.RedirectAction_RedirectResponseCode_name[map[int]int32{301: 0, 302: 1, 303: 2, 307: 3, 308: 4}[status]], a.Response.Headers["Location"])
	case status != http.StatusOK:
		return fmt.Sprintf("answers %d", status)
	}
	var shares []string
	for _, b := range a.Backends {
		shares = append(shares, fmt.Sprintf("%s_%s_%d %d", b.Namespace, b.Name, b.Port, b.Weight))
	}
	if unresolved := unresolvedWeight(table, a); unresolved > 0 {
		shares = append(shares, fmt.Sprintf("unresolved_backends %d", unresolved))
	}
	path, _, _ := strings.Cut(a.Request.Path, "?")
	// Envoy forwards the Host without the port it strips (the blueprint's README says so).
	host, _, _ := strings.Cut(a.Request.Host, ":")
	response := []string{}
	for name, value := range a.Response.HeaderModifier.Set {
		response = append(response, "set "+strings.ToLower(name)+"="+value)
	}
	for name, value := range a.Response.HeaderModifier.Add {
		response = append(response, "add "+strings.ToLower(name)+"="+value)
	}
	for _, name := range a.Response.HeaderModifier.Remove {
		response = append(response, "remove "+strings.ToLower(name))
	}
	return fmt.Sprintf("sends %s%s with %s to %s, answers with %s", host, path, headerList(a.Request.Headers), strings.Join(shares, ", "), sortedList(response))
}

// headerList is headers as "name=value" in lower case, sorted.
func headerList(headers http.Header) string {
	var out []string
	for name, values := range headers {
		for _, v := range values {
			out = append(out, strings.ToLower(name)+"="+v)
		}
	}
	return sortedList(out)
}

func sortedList(items []string) string {
	slices.Sort(items)
	return "[" + strings.Join(items, " ") + "]"
}

// unresolvedWeight is the weight of the backends of a's match that do not resolve: the
// share of its requests answered 500.
func unresolvedWeight(table *routing.Table, a routing.Answer) int32 {
	for _, l := range table.Listeners {
		for _, h := range l.Hosts {
			for _, m := range h.Matches {
				if m.Route != *a.Route || m.Rule != a.Rule || m.Match != a.Match {
					continue
				}
				var weight int32
				for _, b := range m.Backends {
					if !b.Resolved {
						weight += b.Weight
					}
				}
				return weight
			}
		}
	}
	return 0
}

func envoyMatches(m *routev3.RouteMatch, req routing.Request, path string, query url.Values) bool {
	switch {
	case m.GetPath() != "":
		if path != m.GetPath() {
			return false
		}
	case m.GetPathSeparatedPrefix() != "":
		p := m.GetPathSeparatedPrefix()
		if path != p && !strings.HasPrefix(path, p+"/") {
			return false
		}
	case m.GetSafeRegex() != nil:
		if !wholeMatch(m.GetSafeRegex().GetRegex(), path) {
			return false
		}
	default:
		if !strings.HasPrefix(path, m.GetPrefix()) {
			return false
		}
	}
	for _, h := range m.GetHeaders() {
		value, ok := req.Method, true
		if h.GetName() != ":method" {
			var values []string
			values, ok = req.Headers[http.CanonicalHeaderKey(h.GetName())]
			value = strings.Join(values, ",")
		}
		if !ok || !stringMatches(h.GetStringMatch(), value) {
			return false
		}
	}
	for _, q := range m.GetQueryParameters() {
		values, ok := query[q.GetName()]
		if !ok || !stringMatches(q.GetStringMatch(), values[0]) {
			return false
		}
	}
	return true
}

func stringMatches(m *matcherv3.StringMatcher, value string) bool {
	if m.GetSafeRegex() != nil {
		return wholeMatch(m.GetSafeRegex().GetRegex(), value)
	}
	return value == m.GetExact()
}

func wholeMatch(expr, s string) bool {
	re, err := regexp.Compile(`^(?:` + expr + `)$`)
	return err == nil && re.MatchString(s)
}
