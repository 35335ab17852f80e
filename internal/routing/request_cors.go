package routing

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// isPreflight tells whether req is a CORS preflight: OPTIONS with an Origin and an
// Access-Control-Request-Method. The Gateway answers it itself when the rule has a
// CORS filter.
func isPreflight(req Request) bool {
	return req.Method == http.MethodOptions && req.Headers.Get("Origin") != "" && req.Headers.Get("Access-Control-Request-Method") != ""
}

// preflight sets the headers of the Gateway's answer to a preflight: none when the
// origin is not allowed (the browser then refuses the request); else the origin itself
// (never "*", which credentials forbid), the allowed methods and headers (those asked
// for when the filter allows any), the exposed headers, credentials and max age.
func preflight(cors *gatewayv1.HTTPCORSFilter, req Request, headers map[string]string) {
	origin := req.Headers.Get("Origin")
	if !originAllowed(cors.AllowOrigins, origin) {
		return
	}
	headers["Access-Control-Allow-Origin"] = origin
	if len(cors.AllowMethods) > 0 {
		methods := make([]string, len(cors.AllowMethods))
		for i, m := range cors.AllowMethods {
			methods[i] = string(m)
		}
		if methods[0] == "*" {
			methods = []string{req.Headers.Get("Access-Control-Request-Method")}
		}
		headers["Access-Control-Allow-Methods"] = strings.Join(methods, ", ")
	}
	if asked := req.Headers.Get("Access-Control-Request-Headers"); asked != "" && len(cors.AllowHeaders) > 0 {
		allowed := headerNames(cors.AllowHeaders)
		if allowed == "*" {
			allowed = asked
		}
		headers["Access-Control-Allow-Headers"] = allowed
	}
	exposeAndCredentials(cors, headers)
	maxAge := cors.MaxAge
	if maxAge == 0 {
		maxAge = 5 // the API's default
	}
	headers["Access-Control-Max-Age"] = strconv.Itoa(int(maxAge))
}

// simpleCORS sets, for a request with an allowed Origin that is not a preflight, the
// headers the Gateway adds to the backend's answer.
func simpleCORS(cors *gatewayv1.HTTPCORSFilter, req Request, headers map[string]string) {
	origin := req.Headers.Get("Origin")
	if cors == nil || origin == "" || !originAllowed(cors.AllowOrigins, origin) {
		return
	}
	headers["Access-Control-Allow-Origin"] = origin
	exposeAndCredentials(cors, headers)
}

func exposeAndCredentials(cors *gatewayv1.HTTPCORSFilter, headers map[string]string) {
	if len(cors.ExposeHeaders) > 0 {
		headers["Access-Control-Expose-Headers"] = headerNames(cors.ExposeHeaders)
	}
	if cors.AllowCredentials != nil && *cors.AllowCredentials {
		headers["Access-Control-Allow-Credentials"] = "true"
	}
}

func headerNames(names []gatewayv1.HTTPHeaderName) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(n)
	}
	return strings.Join(out, ", ")
}

// originAllowed tells whether origin (scheme://host[:port]) is one of allowed: "*"
// allows any; a "*" in an allowed host stands for any characters, dots included
// ("https://*.bar.com" allows https://a.b.bar.com); ports compare with the scheme's
// well-known port filled in.
func originAllowed(allowed []gatewayv1.CORSOrigin, origin string) bool {
	scheme, host, port, ok := splitOrigin(origin)
	if !ok {
		return false
	}
	for _, a := range allowed {
		if a == "*" {
			return true
		}
		aScheme, aHost, aPort, ok := splitOrigin(string(a))
		if !ok || aScheme != scheme || aPort != port {
			continue
		}
		pattern := "^" + strings.ReplaceAll(regexp.QuoteMeta(aHost), `\*`, ".*") + "$"
		if matched, _ := regexp.MatchString(pattern, host); matched {
			return true
		}
	}
	return false
}

func splitOrigin(origin string) (scheme, host string, port int32, ok bool) {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", "", 0, false
	}
	scheme, host = strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	port = wellKnownPort(scheme)
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return "", "", 0, false
		}
		port = int32(n)
	}
	return scheme, host, port, true
}
