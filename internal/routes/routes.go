// Package routes reads a route of any standard Gateway API kind (HTTPRoute, GRPCRoute,
// TLSRoute, TCPRoute, UDPRoute) through what the kinds share: parentRefs, hostnames,
// each rule's backendRefs and the parent statuses. Everything that attaches routes,
// resolves their backendRefs, computes their values or writes their status works on a
// Route, so that one rule serves every kind.
package routes

import (
	"iter"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The standard route kinds.
const (
	KindHTTPRoute = "HTTPRoute"
	KindGRPCRoute = "GRPCRoute"
	KindTLSRoute  = "TLSRoute"
	KindTCPRoute  = "TCPRoute"
	KindUDPRoute  = "UDPRoute"
)

// Kinds are the standard route kinds, in the order Gatewright lists them.
var Kinds = []string{KindHTTPRoute, KindGRPCRoute, KindTLSRoute, KindTCPRoute, KindUDPRoute}

// HostnameRival is the kind whose routes may not share a hostname on a listener with
// those of kind (HTTPRoute and GRPCRoute, each the other's, as the GRPCRoute
// specification says); empty for the other kinds.
func HostnameRival(kind string) string {
	switch kind {
	case KindHTTPRoute:
		return KindGRPCRoute
	case KindGRPCRoute:
		return KindHTTPRoute
	}
	return ""
}

// OtherKinds are the standard route kinds besides HTTPRoute, which Gatewright has served
// longest and keeps apart where thousands of routes make a difference.
var OtherKinds = Kinds[1:]

// Route is a route of one of the standard kinds: *gatewayv1.HTTPRoute, GRPCRoute,
// TLSRoute, TCPRoute or UDPRoute.
type Route interface {
	metav1.Object
	runtime.Object
}

// IsKind tells whether kind is a standard route kind.
func IsKind(kind string) bool { return slices.Contains(Kinds, kind) }

// KindOf is the kind of route, empty for a type that is no standard route.
func KindOf(route Route) string {
	switch route.(type) {
	case *gatewayv1.HTTPRoute:
		return KindHTTPRoute
	case *gatewayv1.GRPCRoute:
		return KindGRPCRoute
	case *gatewayv1.TLSRoute:
		return KindTLSRoute
	case *gatewayv1.TCPRoute:
		return KindTCPRoute
	case *gatewayv1.UDPRoute:
		return KindUDPRoute
	}
	return ""
}

// New is an empty route of kind; nil for a kind that is no standard route.
func New(kind string) Route {
	switch kind {
	case KindHTTPRoute:
		return &gatewayv1.HTTPRoute{}
	case KindGRPCRoute:
		return &gatewayv1.GRPCRoute{}
	case KindTLSRoute:
		return &gatewayv1.TLSRoute{}
	case KindTCPRoute:
		return &gatewayv1.TCPRoute{}
	case KindUDPRoute:
		return &gatewayv1.UDPRoute{}
	}
	return nil
}

// List is a list of routes of one kind.
type List interface {
	metav1.ListInterface
	runtime.Object
}

// NewList is an empty list of routes of kind; nil for a kind that is no standard route.
func NewList(kind string) List {
	switch kind {
	case KindHTTPRoute:
		return &gatewayv1.HTTPRouteList{}
	case KindGRPCRoute:
		return &gatewayv1.GRPCRouteList{}
	case KindTLSRoute:
		return &gatewayv1.TLSRouteList{}
	case KindTCPRoute:
		return &gatewayv1.TCPRouteList{}
	case KindUDPRoute:
		return &gatewayv1.UDPRouteList{}
	}
	return nil
}

// Items are the routes of list, pointers into it.
func Items(list List) []Route {
	var out []Route
	switch l := list.(type) {
	case *gatewayv1.HTTPRouteList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *gatewayv1.GRPCRouteList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *gatewayv1.TLSRouteList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *gatewayv1.TCPRouteList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *gatewayv1.UDPRouteList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out
}

// HTTPRoutes are the items of list, in order, as pointers into it, typed: a Gateway's
// thousands of routes are handed on without a copy of each.
func HTTPRoutes(list *gatewayv1.HTTPRouteList) []*gatewayv1.HTTPRoute {
	out := make([]*gatewayv1.HTTPRoute, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}

// ParentRefs are the route's spec.parentRefs.
func ParentRefs(route Route) []gatewayv1.ParentReference {
	if spec := commonSpec(route); spec != nil {
		return spec.ParentRefs
	}
	return nil
}

func commonSpec(route Route) *gatewayv1.CommonRouteSpec {
	switch r := route.(type) {
	case *gatewayv1.HTTPRoute:
		return &r.Spec.CommonRouteSpec
	case *gatewayv1.GRPCRoute:
		return &r.Spec.CommonRouteSpec
	case *gatewayv1.TLSRoute:
		return &r.Spec.CommonRouteSpec
	case *gatewayv1.TCPRoute:
		return &r.Spec.CommonRouteSpec
	case *gatewayv1.UDPRoute:
		return &r.Spec.CommonRouteSpec
	}
	return nil
}

// Hostnames are the route's spec.hostnames; HasHostnames tells whether its kind has
// any (TCPRoute and UDPRoute match by port alone, and attach whatever a listener's
// hostname).
func Hostnames(route Route) []gatewayv1.Hostname {
	switch r := route.(type) {
	case *gatewayv1.HTTPRoute:
		return r.Spec.Hostnames
	case *gatewayv1.GRPCRoute:
		return r.Spec.Hostnames
	case *gatewayv1.TLSRoute:
		return r.Spec.Hostnames
	}
	return nil
}

// HasHostnames tells whether routes of kind carry hostnames.
func HasHostnames(kind string) bool {
	return kind == KindHTTPRoute || kind == KindGRPCRoute || kind == KindTLSRoute
}

// BackendRefs are the backendRefs of each rule of the route, by rule index, as the
// BackendRef the kinds share (an HTTPRoute's or GRPCRoute's filters of a backendRef
// are left out).
func BackendRefs(route Route) [][]gatewayv1.BackendRef {
	var out [][]gatewayv1.BackendRef
	switch r := route.(type) {
	case *gatewayv1.HTTPRoute:
		for _, rule := range r.Spec.Rules {
			refs := make([]gatewayv1.BackendRef, 0, len(rule.BackendRefs))
			for _, ref := range rule.BackendRefs {
				refs = append(refs, ref.BackendRef)
			}
			out = append(out, refs)
		}
	case *gatewayv1.GRPCRoute:
		for _, rule := range r.Spec.Rules {
			refs := make([]gatewayv1.BackendRef, 0, len(rule.BackendRefs))
			for _, ref := range rule.BackendRefs {
				refs = append(refs, ref.BackendRef)
			}
			out = append(out, refs)
		}
	case *gatewayv1.TLSRoute:
		for _, rule := range r.Spec.Rules {
			out = append(out, rule.BackendRefs)
		}
	case *gatewayv1.TCPRoute:
		for _, rule := range r.Spec.Rules {
			out = append(out, rule.BackendRefs)
		}
	case *gatewayv1.UDPRoute:
		for _, rule := range r.Spec.Rules {
			out = append(out, rule.BackendRefs)
		}
	}
	return out
}

// AllBackendRefs yields each backendRef of the route's rules with its rule's index, as
// BackendRefs lists them, without building the lists: a Gateway's pass resolves those
// of thousands of routes.
func AllBackendRefs(route Route) iter.Seq2[int, *gatewayv1.BackendRef] {
	return func(yield func(int, *gatewayv1.BackendRef) bool) {
		switch r := route.(type) {
		case *gatewayv1.HTTPRoute:
			for i := range r.Spec.Rules {
				for j := range r.Spec.Rules[i].BackendRefs {
					if !yield(i, &r.Spec.Rules[i].BackendRefs[j].BackendRef) {
						return
					}
				}
			}
		case *gatewayv1.GRPCRoute:
			for i := range r.Spec.Rules {
				for j := range r.Spec.Rules[i].BackendRefs {
					if !yield(i, &r.Spec.Rules[i].BackendRefs[j].BackendRef) {
						return
					}
				}
			}
		default:
			for i, rule := range BackendRefs(route) {
				for j := range rule {
					if !yield(i, &rule[j]) {
						return
					}
				}
			}
		}
	}
}

// Spec is the route's spec, a pointer into route; nil for a type that is no standard
// route.
func Spec(route Route) any {
	switch r := route.(type) {
	case *gatewayv1.HTTPRoute:
		return &r.Spec
	case *gatewayv1.GRPCRoute:
		return &r.Spec
	case *gatewayv1.TLSRoute:
		return &r.Spec
	case *gatewayv1.TCPRoute:
		return &r.Spec
	case *gatewayv1.UDPRoute:
		return &r.Spec
	}
	return nil
}

// Status is the route's status, which every kind shares: a pointer into route, so that
// a writer sets its parents in place.
func Status(route Route) *gatewayv1.RouteStatus {
	switch r := route.(type) {
	case *gatewayv1.HTTPRoute:
		return &r.Status.RouteStatus
	case *gatewayv1.GRPCRoute:
		return &r.Status.RouteStatus
	case *gatewayv1.TLSRoute:
		return &r.Status.RouteStatus
	case *gatewayv1.TCPRoute:
		return &r.Status.RouteStatus
	case *gatewayv1.UDPRoute:
		return &r.Status.RouteStatus
	}
	return nil
}

// Key names a route by kind, namespace and name: routes of two kinds may share a name.
type Key struct {
	Kind, Namespace, Name string
}

// KeyOf is route's Key.
func KeyOf(route Route) Key {
	return Key{Kind: KindOf(route), Namespace: route.GetNamespace(), Name: route.GetName()}
}

func (k Key) String() string { return k.Kind + " " + k.Namespace + "/" + k.Name }
