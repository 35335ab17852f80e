package attach

import (
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// hostnamesIntersect: a listener without a hostname takes every route; a route
// without hostnames takes every listener; otherwise one pair must match, with a
// leading "*." matching one or more labels.
func hostnamesIntersect(listener *gatewayv1.Hostname, routeHostnames []gatewayv1.Hostname) bool {
	if listener == nil || *listener == "" || len(routeHostnames) == 0 {
		return true
	}
	for _, h := range routeHostnames {
		if hostnameMatches(string(*listener), string(h)) || hostnameMatches(string(h), string(*listener)) {
			return true
		}
	}
	return false
}

// hostnameMatches tells whether pattern (possibly a wildcard) covers name.
func hostnameMatches(pattern, name string) bool {
	if pattern == name {
		return true
	}
	suffix, wildcard := strings.CutPrefix(pattern, "*")
	if !wildcard {
		return false
	}
	name = strings.TrimPrefix(name, "*")
	return strings.HasSuffix(name, suffix) && len(name) > len(suffix)
}

// Intersection is the hostname a request must carry to reach a route on a listener:
// the more specific of a listener hostname and a route hostname when one covers the
// other, and false when neither does. An empty listener hostname covers every name.
func Intersection(listener, route string) (string, bool) {
	switch {
	case listener == "" || listener == route:
		return route, true
	case hostnameMatches(listener, route):
		return route, true
	case hostnameMatches(route, listener):
		return listener, true
	}
	return "", false
}
