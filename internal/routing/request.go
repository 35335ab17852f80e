package routing

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Request is one HTTP request as a client sends it to a Gateway.
type Request struct {
	// Method is GET when empty.
	Method string
	// Scheme is http or https: an https request goes to a listener that terminates TLS,
	// its SNI the Host.
	Scheme string
	// Host is the request's Host, without a port.
	Host string
	// Port is the port the client dials: it selects the listener.
	Port int32
	// Authority is the Host header as the client sends it, port included, which the
	// backends receive unless a rewrite changes it; empty for Host, with ":Port" when
	// Port is not the scheme's well-known one (as curl and browsers send it).
	Authority string
	// Path is the path with its query, as sent ("/shop?page=2").
	Path    string
	Headers http.Header
}

// Answer is what the Gateway does with a request: the listener, host and match that
// take it, what it answers itself or what each backend receives.
type Answer struct {
	// Listener is the name of the listener that takes the request, empty when none does.
	Listener string `json:"listener"`
	// Route, Rule and Match say which match took the request; nil, -1 and -1 when none.
	Route *ObjectRef `json:"route"`
	Rule  int        `json:"rule"`
	Match int        `json:"match"`
	// Response is the status and the headers the client gets from the Gateway.
	Response Response `json:"response"`
	// Backends are the matched rule's valid backends with their weights; empty when the
	// Gateway answers itself.
	Backends []BackendAnswer `json:"backends"`
	// Request is the request as the backends receive it, when their own filters do not
	// change it.
	Request Forwarded `json:"request"`
	// Notes say in words what the fields do not: why a request is not taken, what is
	// not computed (mirrors, extension filters).
	Notes []string `json:"-"`
}

// Response is what the Gateway answers, or adds to a backend's answer.
type Response struct {
	// Status is 200 when the request goes to a backend, 404 when no match takes it, 500
	// when the rule has no valid backend, 3xx for a redirect, or the status of what the
	// Gateway answers itself (a CORS preflight).
	Status int `json:"status"`
	// Headers are the headers the Gateway itself sets on the answer: Location for a
	// redirect, Access-Control-* for CORS.
	Headers map[string]string `json:"headers"`
	// HeaderModifier is what the Gateway does to a backend's response headers.
	HeaderModifier HeaderChanges `json:"headerModifier"`
}

// HeaderChanges are a ResponseHeaderModifier's changes, merged over the rule's filters.
type HeaderChanges struct {
	Set    map[string]string `json:"set"`
	Add    map[string]string `json:"add"`
	Remove []string          `json:"remove"`
}

// BackendAnswer is one valid backend of the matched rule.
type BackendAnswer struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Port      int32  `json:"port"`
	Weight    int32  `json:"weight"`
	// Request is what this backend receives, when its own filters make it differ from
	// the answer's Request.
	Request *Forwarded `json:"request,omitempty"`
}

// Forwarded is a request as a backend receives it.
type Forwarded struct {
	Method string `json:"method"`
	Scheme string `json:"scheme"`
	Host   string `json:"host"`
	// Path is the path with its query.
	Path    string      `json:"path"`
	Headers http.Header `json:"headers"`
}

// Serve answers req as the Gateway of table does, by the Gateway API's rules: the
// listener on req's port whose hostname matches req's Host most specifically, then the
// listener's most specific host that matches (exact, then the longest wildcard, then
// "*"), then the first of that host's matches, in precedence order, that matches; then
// the match's filters and backends. It reads nothing but its arguments.
func Serve(table *Table, req Request) Answer {
	req = normalizeRequest(req)
	a := Answer{Rule: -1, Match: -1, Backends: []BackendAnswer{}, Request: forwardedOf(req),
		Response: Response{Status: http.StatusNotFound, Headers: map[string]string{},
			HeaderModifier: HeaderChanges{Set: map[string]string{}, Add: map[string]string{}, Remove: []string{}}}}
	if path, _, _ := strings.Cut(req.Path, "?"); normalizedPath(path) != path {
		a.note("the path %s is matched as sent; a data plane that normalizes paths (most remove dot segments, some merge slashes too, as Envoy does in the envoy-proxy blueprint) matches %s instead", path, normalizedPath(path))
	}
	l := listenerFor(table, req, &a)
	if l == nil {
		return a
	}
	a.Listener = l.Name
	host := hostFor(l, req.Host)
	if host == nil {
		a.note("listener %s has no host that matches %s", l.Name, req.Host)
		return a
	}
	m := firstMatch(host, req)
	if m == nil {
		a.note("no match of host %s on listener %s takes %s %s", host.Hostname, l.Name, req.Method, req.Path)
		return a
	}
	a.Route, a.Rule, a.Match = &m.Route, m.Rule, m.Match
	apply(&a, l, m, req)
	return a
}

// normalizeRequest gives req its defaults: GET, a lower-case host and scheme, a path
// that starts with "/", canonical header names.
func normalizeRequest(req Request) Request {
	if req.Method == "" {
		req.Method = http.MethodGet
	}
	req.Scheme = strings.ToLower(req.Scheme)
	req.Host = strings.ToLower(strings.TrimSuffix(req.Host, "."))
	if !strings.HasPrefix(req.Path, "/") {
		req.Path = "/" + req.Path
	}
	headers := http.Header{}
	for name, values := range req.Headers {
		for _, v := range values {
			headers.Add(name, v)
		}
	}
	req.Headers = headers
	return req
}

func forwardedOf(req Request) Forwarded {
	host := req.Authority
	if host == "" {
		host = req.Host
		if req.Port != wellKnownPort(req.Scheme) {
			host += ":" + strconv.Itoa(int(req.Port))
		}
	}
	return Forwarded{Method: req.Method, Scheme: req.Scheme, Host: host, Path: req.Path, Headers: req.Headers.Clone()}
}

// listenerFor is the valid listener on req's port, of req's scheme, whose hostname
// matches req's Host most specifically: the same name, else the longest wildcard, else
// one without a hostname. A listener that is not valid takes nothing.
func listenerFor(table *Table, req Request, a *Answer) *Listener {
	var best *Listener
	bestRank := -1
	onPort := false
	for i := range table.Listeners {
		l := &table.Listeners[i]
		if l.Port != req.Port {
			continue
		}
		onPort = true
		if !servesScheme(l, req.Scheme) {
			continue
		}
		rank := hostnameRankFor(l.Hostname, req.Host)
		if rank < 0 {
			continue
		}
		if !l.Valid {
			a.note("listener %s matches but is not valid: it serves nothing", l.Name)
			continue
		}
		if rank > bestRank {
			best, bestRank = l, rank
		}
	}
	if best == nil && !onPort {
		a.note("the Gateway has no listener on port %d", req.Port)
	} else if best == nil {
		a.note("no valid %s listener on port %d takes the host %s", strings.ToUpper(req.Scheme), req.Port, req.Host)
	}
	return best
}

// servesScheme tells whether l takes requests of scheme: HTTP listeners http, HTTPS
// listeners that terminate TLS https.
func servesScheme(l *Listener, scheme string) bool {
	switch gatewayv1.ProtocolType(l.Protocol) {
	case gatewayv1.HTTPProtocolType:
		return scheme == "http"
	case gatewayv1.HTTPSProtocolType:
		return scheme == "https" && l.TLSMode != string(gatewayv1.TLSModePassthrough)
	}
	return false
}

// hostFor is l's most specific host that matches hostname: l's hosts are ordered exact
// names first, then wildcards from the most labels to the fewest, "*" last.
func hostFor(l *Listener, hostname string) *Host {
	for i := range l.Hosts {
		if hostnameRankFor(l.Hosts[i].Hostname, hostname) >= 0 {
			return &l.Hosts[i]
		}
	}
	return nil
}

// hostnameRankFor says how specifically pattern (a listener's or route's hostname,
// "" or "*" for any) matches hostname: -1 when it does not, 0 for any name, the length
// of the suffix for a wildcard, more than any suffix for the same name. A wildcard
// matches one label or more ("*.example.com" takes a.b.example.com, not example.com).
func hostnameRankFor(pattern, hostname string) int {
	switch {
	case pattern == "" || pattern == "*":
		return 0
	case strings.HasPrefix(pattern, "*."):
		suffix := strings.ToLower(pattern[1:])
		if len(hostname) > len(suffix) && strings.HasSuffix(hostname, suffix) {
			return len(suffix)
		}
		return -1
	case strings.EqualFold(pattern, hostname):
		return 1 << 16
	}
	return -1
}

// firstMatch is the first of host's matches that takes req.
func firstMatch(host *Host, req Request) *Match {
	path, rawQuery, _ := strings.Cut(req.Path, "?")
	query, _ := url.ParseQuery(rawQuery) // what parses; a malformed pair matches nothing
	for _, m := range host.Matches {
		if matchesPath(m.Path, path) && (m.Method == "" || m.Method == req.Method) &&
			matchesAll(m.Headers, func(name string) (string, bool) {
				values, ok := req.Headers[http.CanonicalHeaderKey(name)]
				return strings.Join(values, ","), ok
			}) &&
			matchesAll(m.QueryParams, func(name string) (string, bool) {
				values, ok := query[name]
				if !ok || len(values) == 0 {
					return "", false
				}
				return values[0], true // a repeated parameter: the first, as most proxies
			}) {
			return m
		}
	}
	return nil
}

// normalizedPath is path with its dot segments removed (RFC 3986, section 5.2.4) and
// repeated slashes merged, a trailing slash kept: what a data plane that normalizes
// paths matches.
func normalizedPath(path string) string {
	segments := strings.Split(path, "/")[1:]
	var kept []string
	for _, s := range segments {
		switch s {
		case "", ".":
		case "..":
			kept = kept[:max(0, len(kept)-1)]
		default:
			kept = append(kept, s)
		}
	}
	out := "/" + strings.Join(kept, "/")
	if last := segments[len(segments)-1]; out != "/" && (last == "" || last == "." || last == "..") {
		out += "/"
	}
	return out
}

// matchesPath tells whether path (without query) matches: Exact as written; PathPrefix
// by whole segments ("/abc" takes /abc, /abc/ and /abc/d, not /abcd; a trailing "/" of
// the prefix is ignored); RegularExpression as RE2 matching the whole path.
func matchesPath(m PathMatch, path string) bool {
	switch gatewayv1.PathMatchType(m.Type) {
	case gatewayv1.PathMatchExact:
		return path == m.Value
	case gatewayv1.PathMatchRegularExpression:
		return fullMatch(m.Value, path)
	}
	prefix := strings.TrimSuffix(m.Value, "/")
	return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
}

// matchesAll tells whether every match finds its value by lookup.
func matchesAll(matches []ValueMatch, lookup func(name string) (string, bool)) bool {
	for _, m := range matches {
		value, ok := lookup(m.Name)
		if !ok {
			return false
		}
		if m.Type == string(gatewayv1.HeaderMatchRegularExpression) {
			if !fullMatch(m.Value, value) {
				return false
			}
		} else if value != m.Value {
			return false
		}
	}
	return true
}

// fullMatch tells whether s matches expr as a whole, as RE2's FullMatch; an expression
// that does not compile matches nothing.
func fullMatch(expr, s string) bool {
	re, err := regexp.Compile(`^(?:` + expr + `)$`)
	return err == nil && re.MatchString(s)
}
