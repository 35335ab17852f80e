package attach

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
)

// Referrer is the object that holds a reference: its group, kind and namespace.
type Referrer struct {
	Group, Kind, Namespace string
}

// Referent is the object a reference names.
type Referent struct {
	Group, Kind, Namespace, Name string
}

// ReferencePermitted tells whether from may refer to to: always within one namespace;
// across namespaces only when a ReferenceGrant in to's namespace lists from (group, kind,
// namespace) and to (group, kind, and no name or to's name). Grants of other namespaces
// are ignored, so callers may pass more than they need.
func ReferencePermitted(grants []gatewayv1.ReferenceGrant, from Referrer, to Referent) bool {
	if from.Namespace == to.Namespace {
		return true
	}
	for i := range grants {
		g := &grants[i]
		if g.Namespace == to.Namespace && grantsFrom(g, from) && grantsTo(g, to) {
			return true
		}
	}
	return false
}

func grantsFrom(g *gatewayv1.ReferenceGrant, from Referrer) bool {
	for _, f := range g.Spec.From {
		if string(f.Group) == from.Group && string(f.Kind) == from.Kind && string(f.Namespace) == from.Namespace {
			return true
		}
	}
	return false
}

func grantsTo(g *gatewayv1.ReferenceGrant, to Referent) bool {
	for _, t := range g.Spec.To {
		if string(t.Group) == to.Group && string(t.Kind) == to.Kind && (t.Name == nil || *t.Name == "" || string(*t.Name) == to.Name) {
			return true
		}
	}
	return false
}

// ReferrerNamespaces are the namespaces from which grant lets objects of group and kind
// refer to its namespace: whose references resolve differently when the grant comes,
// changes or goes.
func ReferrerNamespaces(grant *gatewayv1.ReferenceGrant, group, kind string) []string {
	var out []string
	for _, f := range grant.Spec.From {
		if string(f.Group) == group && string(f.Kind) == kind {
			out = append(out, string(f.Namespace))
		}
	}
	return out
}

// CertificateReferents are the objects the certificateRefs of gw's listeners name.
func CertificateReferents(gw *gatewayv1.Gateway) []Referent {
	return certificateReferents(gw.Namespace, gw.Spec.Listeners)
}

// ListenerSetCertificateReferents are the objects the certificateRefs of ls's listeners
// name.
func ListenerSetCertificateReferents(ls *gatewayv1.ListenerSet) []Referent {
	return certificateReferents(ls.Namespace, listeners.EntriesAsListeners(ls.Spec.Listeners))
}

func certificateReferents(namespace string, ls []gatewayv1.Listener) []Referent {
	var out []Referent
	for i := range ls {
		if ls[i].TLS == nil {
			continue
		}
		for _, ref := range ls[i].TLS.CertificateRefs {
			c := certificateIn(namespace, ref)
			out = append(out, referent(ref.Group, ref.Kind, "Secret", c.Namespace, string(ref.Name)))
		}
	}
	return out
}

// BackendReferents are the objects the backendRefs of route name.
func BackendReferents(route routes.Route) []Referent {
	var out []Referent
	for _, rule := range routes.BackendRefs(route) {
		for _, ref := range rule {
			key, _ := BackendService(route, ref.BackendObjectReference)
			out = append(out, referent(ref.Group, ref.Kind, "Service", key.Namespace, key.Name))
		}
	}
	return out
}

// referent is the object a reference names, of kind orKind when it names none.
func referent(group *gatewayv1.Group, kind *gatewayv1.Kind, orKind, namespace, name string) Referent {
	to := Referent{Kind: orKind, Namespace: namespace, Name: name}
	if group != nil {
		to.Group = string(*group)
	}
	if kind != nil {
		to.Kind = string(*kind)
	}
	return to
}
