package main

import (
	"strings"

	"github.com/gatewright/gatewright/internal/routes"
)

// routeKindOf is the route kind a command's word for it names: httproute, grpcroute,
// tlsroute, tcproute or udproute, or their plurals, in any case.
func routeKindOf(word string) (string, bool) {
	word = strings.ToLower(word)
	for _, kind := range routes.Kinds {
		if lower := strings.ToLower(kind); word == lower || word == lower+"s" {
			return kind, true
		}
	}
	return "", false
}

// splitRoute reads [KIND/]NAMESPACE/NAME, KIND an HTTPRoute when left out.
func splitRoute(ref string) (kind, namespace, name string, ok bool) {
	kind = routes.KindHTTPRoute
	if parts := strings.SplitN(ref, "/", 3); len(parts) == 3 {
		if kind, ok = routeKindOf(parts[0]); !ok {
			return "", "", "", false
		}
		ref = parts[1] + "/" + parts[2]
	}
	namespace, name = splitName(ref)
	return kind, namespace, name, true
}
