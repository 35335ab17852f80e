package routing

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func (a *Answer) note(format string, args ...any) {
	a.Notes = append(a.Notes, fmt.Sprintf(format, args...))
}

// apply answers req, taken by m on listener l: a CORS preflight or a redirect is
// answered by the Gateway; anything else goes to the rule's valid backends, changed by
// the rule's filters in order, then by each backend's own.
func apply(a *Answer, l *Listener, m *Match, req Request) {
	for i := range m.Filters {
		if cors := m.Filters[i].CORS; m.Filters[i].Type == gatewayv1.HTTPRouteFilterCORS && cors != nil && isPreflight(req) {
			a.Response.Status = http.StatusOK
			preflight(cors, req, a.Response.Headers)
			return
		}
	}
	var redirect *gatewayv1.HTTPRequestRedirectFilter
	for i := range m.Filters {
		f := &m.Filters[i]
		switch f.Type {
		case gatewayv1.HTTPRouteFilterRequestRedirect:
			redirect = f.RequestRedirect
		case gatewayv1.HTTPRouteFilterResponseHeaderModifier:
			modifyResponse(&a.Response.HeaderModifier, f.ResponseHeaderModifier)
		case gatewayv1.HTTPRouteFilterCORS:
			simpleCORS(f.CORS, req, a.Response.Headers)
		default:
			changeRequest(&a.Request, f, m.Path, a)
		}
	}
	if redirect != nil {
		a.Response.Status = redirectStatus(redirect)
		a.Response.Headers["Location"] = location(redirect, l, m.Path, req)
		return
	}
	if len(m.Backends) == 0 {
		a.Response.Status = http.StatusInternalServerError
		a.note("rule %d of %s %s/%s has no backendRefs and no redirect", m.Rule, m.Route.Kind, m.Route.Namespace, m.Route.Name)
		return
	}
	var total, invalid int32
	for _, b := range m.Backends {
		total += b.Weight
		if !b.Resolved || b.Weight == 0 {
			if !b.Resolved {
				invalid += b.Weight
				a.note("backend %s %s/%s does not resolve (%s)", b.Kind, b.Namespace, b.Name, b.Reason)
			}
			continue
		}
		answer := BackendAnswer{Kind: b.Kind, Namespace: b.Namespace, Name: b.Name, Port: b.Port, Weight: b.Weight}
		if len(b.Filters) > 0 {
			own := a.Request
			own.Headers = own.Headers.Clone()
			for i := range b.Filters {
				changeRequest(&own, &b.Filters[i], m.Path, a)
			}
			if !reflect.DeepEqual(own, a.Request) {
				answer.Request = &own
			}
		}
		a.Backends = append(a.Backends, answer)
	}
	switch {
	case len(a.Backends) == 0:
		a.Response.Status = http.StatusInternalServerError
		a.note("rule %d of %s %s/%s has no valid backend with a weight above 0", m.Rule, m.Route.Kind, m.Route.Namespace, m.Route.Name)
	case invalid > 0:
		a.Response.Status = http.StatusOK
		a.note("%d of %d by weight get 500: their backends do not resolve", invalid, total)
	default:
		a.Response.Status = http.StatusOK
	}
}

// changeRequest applies a filter that changes what the backends receive:
// RequestHeaderModifier and URLRewrite. Filters that only observe, or that the
// Gateway API leaves to the data plane, are noted.
func changeRequest(fwd *Forwarded, f *gatewayv1.HTTPRouteFilter, match PathMatch, a *Answer) {
	switch f.Type {
	case gatewayv1.HTTPRouteFilterRequestHeaderModifier:
		if h := f.RequestHeaderModifier; h != nil {
			for _, s := range h.Set {
				fwd.Headers.Set(string(s.Name), s.Value)
			}
			for _, s := range h.Add {
				fwd.Headers.Add(string(s.Name), s.Value)
			}
			for _, name := range h.Remove {
				fwd.Headers.Del(name)
			}
		}
	case gatewayv1.HTTPRouteFilterURLRewrite:
		if r := f.URLRewrite; r != nil {
			if r.Hostname != nil {
				fwd.Host = string(*r.Hostname)
			}
			if r.Path != nil {
				path, query, hasQuery := strings.Cut(fwd.Path, "?")
				fwd.Path = modifiedPath(r.Path, match, path)
				if hasQuery {
					fwd.Path += "?" + query
				}
			}
		}
	case gatewayv1.HTTPRouteFilterRequestMirror:
		if r := f.RequestMirror; r != nil {
			a.note("a copy of the request goes to %s (mirror); its answer is ignored", r.BackendRef.Name)
		}
	case gatewayv1.HTTPRouteFilterExtensionRef, gatewayv1.HTTPRouteFilterExternalAuth:
		a.note("filter %s is the data plane's own: its effect is not computed here", f.Type)
	}
}

// modifiedPath is path after modifier. ReplacePrefixMatch replaces the matched prefix
// by whole segments, as the Gateway API's table says: with prefix /foo, /foo/bar becomes
// /xyz/bar for /xyz or /xyz/, and /bar for "" or "/"; /foo/ becomes /xyz/; /foo becomes
// /xyz, and "/" for "" or "/".
func modifiedPath(modifier *gatewayv1.HTTPPathModifier, match PathMatch, path string) string {
	switch modifier.Type {
	case gatewayv1.FullPathHTTPPathModifier:
		if modifier.ReplaceFullPath != nil {
			return *modifier.ReplaceFullPath
		}
	case gatewayv1.PrefixMatchHTTPPathModifier:
		if modifier.ReplacePrefixMatch != nil {
			prefix := strings.TrimSuffix(match.Value, "/")
			rest := strings.TrimPrefix(path, prefix)
			out := strings.TrimSuffix(*modifier.ReplacePrefixMatch, "/") + rest
			if out == "" {
				return "/"
			}
			return out
		}
	}
	return path
}

func redirectStatus(r *gatewayv1.HTTPRequestRedirectFilter) int {
	if r.StatusCode != nil {
		return *r.StatusCode
	}
	return http.StatusFound
}

// location is the redirect's absolute Location: the scheme, hostname and path the
// filter says, else the request's; the port the filter says, else the new scheme's
// well-known port when the filter changes the scheme, else the listener's; the port
// left out when it is the scheme's well-known one. The query is kept.
func location(r *gatewayv1.HTTPRequestRedirectFilter, l *Listener, match PathMatch, req Request) string {
	scheme := req.Scheme
	if r.Scheme != nil {
		scheme = strings.ToLower(*r.Scheme)
	}
	host := req.Host
	if r.Hostname != nil {
		host = string(*r.Hostname)
	}
	port := l.Port
	switch {
	case r.Port != nil:
		port = int32(*r.Port)
	case r.Scheme != nil && wellKnownPort(scheme) != 0:
		port = wellKnownPort(scheme)
	}
	path, query, hasQuery := strings.Cut(req.Path, "?")
	if r.Path != nil {
		path = modifiedPath(r.Path, match, path)
	}
	out := scheme + "://" + host
	if port != wellKnownPort(scheme) {
		out += ":" + strconv.Itoa(int(port))
	}
	out += path
	if hasQuery {
		out += "?" + query
	}
	return out
}

func wellKnownPort(scheme string) int32 {
	switch scheme {
	case "http":
		return 80
	case "https":
		return 443
	}
	return 0
}

// modifyResponse merges a ResponseHeaderModifier into changes.
func modifyResponse(changes *HeaderChanges, h *gatewayv1.HTTPHeaderFilter) {
	if h == nil {
		return
	}
	for _, s := range h.Set {
		changes.Set[http.CanonicalHeaderKey(string(s.Name))] = s.Value
	}
	for _, s := range h.Add {
		name := http.CanonicalHeaderKey(string(s.Name))
		if prev, ok := changes.Add[name]; ok {
			changes.Add[name] = prev + "," + s.Value
		} else {
			changes.Add[name] = s.Value
		}
	}
	for _, name := range h.Remove {
		changes.Remove = append(changes.Remove, http.CanonicalHeaderKey(name))
	}
}
