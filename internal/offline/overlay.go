package offline

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gatewright/gatewright/internal/routes"
)

// Ref names one object: KIND/NAMESPACE/NAME, or KIND/NAME for a cluster-scoped kind.
type Ref struct {
	Kind      string
	Namespace string
	Name      string
}

func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// ParseRef reads KIND/NAMESPACE/NAME, or KIND/NAME for a cluster-scoped kind; KIND is a
// kind the set holds, in any case (gateway, Gateway, HTTPRoute).
func ParseRef(s string) (Ref, error) {
	parts := strings.Split(s, "/")
	var kind string
	for _, k := range kinds {
		if strings.EqualFold(k.name, parts[0]) {
			kind = k.name
			if k.namespaced != (len(parts) == 3) || (!k.namespaced && len(parts) != 2) {
				return Ref{}, fmt.Errorf("%q: a %s is named as %s", s, k.name, k.form())
			}
		}
	}
	if kind == "" {
		return Ref{}, fmt.Errorf("%q: the kind must be one of %s", s, kindNames())
	}
	ref := Ref{Kind: kind, Name: parts[len(parts)-1]}
	if len(parts) == 3 {
		ref.Namespace = parts[1]
	}
	if ref.Name == "" || (len(parts) == 3 && ref.Namespace == "") {
		return Ref{}, fmt.Errorf("%q: the namespace and name must not be empty", s)
	}
	return ref, nil
}

// With returns a new set: s with the objects of changed replacing those of the same kind,
// namespace and name or added, and those deletes name removed. Neither s nor changed is
// changed. A delete that names nothing in s is an error: it is most likely a typo.
// controllerNamespace holds the class-wide GatewayClassConfigs, those that may ride a
// blueprint's rollout: a change of one is a new revision of its classes' blueprints.
func (s *Set) With(changed *Set, deletes []Ref, controllerNamespace string) (*Set, error) {
	out := &Set{
		Blueprints:          overlay(s.Blueprints, changed.Blueprints),
		GatewayClasses:      overlay(s.GatewayClasses, changed.GatewayClasses),
		Gateways:            overlay(s.Gateways, changed.Gateways),
		HTTPRoutes:          overlay(s.HTTPRoutes, changed.HTTPRoutes),
		ListenerSets:        overlay(s.ListenerSets, changed.ListenerSets),
		OtherRoutes:         overlayRoutes(s.OtherRoutes, changed.OtherRoutes),
		GatewayClassConfigs: overlay(s.GatewayClassConfigs, changed.GatewayClassConfigs),
		GatewayConfigs:      overlay(s.GatewayConfigs, changed.GatewayConfigs),
		Namespaces:          overlay(s.Namespaces, changed.Namespaces),
		Services:            overlay(s.Services, changed.Services),
		ReferenceGrants:     overlay(s.ReferenceGrants, changed.ReferenceGrants),
		Secrets:             overlay(s.Secrets, changed.Secrets),
		Revisions:           overlay(s.Revisions, changed.Revisions),
		Renderings:          overlay(s.Renderings, changed.Renderings),
		Overrides:           s.Overrides,
		SecretsUnread:       s.SecretsUnread,
		ServicesUnread:      s.ServicesUnread,
		places:              maps.Clone(s.places),
		proposed:            maps.Clone(s.proposed),
	}
	if out.proposed == nil {
		out.proposed = map[string]bool{}
	}
	if out.places == nil {
		out.places = map[string]map[string]templatePlace{}
	}
	maps.Copy(out.places, changed.places)
	for _, ref := range deletes {
		if !out.remove(ref) {
			return nil, fmt.Errorf("--delete %s: no such object", ref)
		}
	}
	if err := proposing(out, s, touchedBlueprints(out, s, changed, deletes, controllerNamespace), controllerNamespace); err != nil {
		return nil, err
	}
	return out, nil
}

// ObjectNamespaces lists the namespaces the set's namespaced objects are in, each once.
func (s *Set) ObjectNamespaces() []string {
	out := slices.Concat(namespacesOf(s.Gateways), namespacesOf(s.HTTPRoutes), namespacesOf(s.ListenerSets), namespacesOf(s.GatewayClassConfigs),
		namespacesOf(s.GatewayConfigs), namespacesOf(s.Services), namespacesOf(s.Secrets), namespacesOf(s.ReferenceGrants))
	for _, route := range s.OtherRoutes {
		out = append(out, route.GetNamespace())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func namespacesOf[T any, P object[T]](items []T) []string {
	out := make([]string, len(items))
	for i := range items {
		out[i] = P(&items[i]).GetNamespace()
	}
	return out
}

// remove removes the object ref names, and tells whether there was one.
func (s *Set) remove(ref Ref) bool {
	for _, k := range kinds {
		if k.name == ref.Kind {
			return k.remove(s, ref.Namespace, ref.Name)
		}
	}
	return false
}

// overlay returns base with the items of changed replacing those of the same namespace
// and name, in base's order, and the others appended in changed's order.
func overlay[T any, P object[T]](base, changed []T) []T {
	out := append([]T(nil), base...)
	for i := range changed {
		item := P(&changed[i])
		replaced := false
		for j := range out {
			if P(&out[j]).GetNamespace() == item.GetNamespace() && P(&out[j]).GetName() == item.GetName() {
				out[j], replaced = changed[i], true
				break
			}
		}
		if !replaced {
			out = append(out, changed[i])
		}
	}
	return out
}

// without removes the item of namespace and name from list, and tells whether it was there.
// overlayRoutes is overlay for the routes of the other kinds, matched by kind too.
func overlayRoutes(base, changed []routes.Route) []routes.Route {
	out := slices.Clone(base)
	for _, route := range changed {
		if i := slices.IndexFunc(out, func(r routes.Route) bool { return routes.KeyOf(r) == routes.KeyOf(route) }); i >= 0 {
			out[i] = route
		} else {
			out = append(out, route)
		}
	}
	return out
}

// withoutRoute removes the route of kind namespace/name from s's other routes, and tells
// whether there was one.
func withoutRoute(s *Set, kind, namespace, name string) bool {
	key := routes.Key{Kind: kind, Namespace: namespace, Name: name}
	i := slices.IndexFunc(s.OtherRoutes, func(r routes.Route) bool { return routes.KeyOf(r) == key })
	if i >= 0 {
		s.OtherRoutes = slices.Delete(slices.Clone(s.OtherRoutes), i, i+1)
	}
	return i >= 0
}

func without[T any, P object[T]](list *[]T, namespace, name string) bool {
	for i := range *list {
		if item := P(&(*list)[i]); item.GetNamespace() == namespace && item.GetName() == name {
			*list = append((*list)[:i:i], (*list)[i+1:]...)
			return true
		}
	}
	return false
}

// kind is a kind a set holds.
type kind struct {
	name       string
	namespaced bool
	remove     func(s *Set, namespace, name string) bool
}

func (k kind) form() string {
	if k.namespaced {
		return k.name + "/NAMESPACE/NAME"
	}
	return k.name + "/NAME"
}

var kinds = []kind{
	{"GatewayClassBlueprint", false, func(s *Set, ns, n string) bool { return without(&s.Blueprints, ns, n) }},
	{"GatewayClass", false, func(s *Set, ns, n string) bool { return without(&s.GatewayClasses, ns, n) }},
	{"Gateway", true, func(s *Set, ns, n string) bool { return without(&s.Gateways, ns, n) }},
	{"HTTPRoute", true, func(s *Set, ns, n string) bool { return without(&s.HTTPRoutes, ns, n) }},
	{"ListenerSet", true, func(s *Set, ns, n string) bool { return without(&s.ListenerSets, ns, n) }},
	{"GRPCRoute", true, func(s *Set, ns, n string) bool { return withoutRoute(s, "GRPCRoute", ns, n) }},
	{"TLSRoute", true, func(s *Set, ns, n string) bool { return withoutRoute(s, "TLSRoute", ns, n) }},
	{"TCPRoute", true, func(s *Set, ns, n string) bool { return withoutRoute(s, "TCPRoute", ns, n) }},
	{"UDPRoute", true, func(s *Set, ns, n string) bool { return withoutRoute(s, "UDPRoute", ns, n) }},
	{"GatewayClassConfig", true, func(s *Set, ns, n string) bool { return without(&s.GatewayClassConfigs, ns, n) }},
	{"GatewayConfig", true, func(s *Set, ns, n string) bool { return without(&s.GatewayConfigs, ns, n) }},
	{"Namespace", false, func(s *Set, ns, n string) bool { return without(&s.Namespaces, ns, n) }},
	{"Service", true, func(s *Set, ns, n string) bool { return without(&s.Services, ns, n) }},
	{"ReferenceGrant", true, func(s *Set, ns, n string) bool { return without(&s.ReferenceGrants, ns, n) }},
	{"Secret", true, func(s *Set, ns, n string) bool { return without(&s.Secrets, ns, n) }},
}

func kindNames() string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}
