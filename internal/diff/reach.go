package diff

import (
	"cmp"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
	"maps"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/offline"
)

// reach finds the Gateways whose result may differ between base and changed, from the
// objects that differ, so that the others are not computed at all. It errs on the side
// of computing too much: a Gateway reached for nothing reports nothing.
type reach struct {
	controllerNamespace string
	gateways            []*gatewayv1.Gateway // both sides'
	routes              []routes.Route       // both sides', of every kind
	reached             map[client.ObjectKey]bool
	// policies are the GatewayClassConfigs and GatewayConfigs that differ, whose verdict
	// is judged even where they take part in nothing.
	policies []client.ObjectKey
	all      bool
	// byClass: a blueprint or class changed, which reaches its Gateways in every namespace.
	byClass bool
}

// reachedGateways returns the keys of the Gateways, of either side, that the change may
// reach, sorted, and the policies that differ by kind.
func reachedGateways(base, changed *offline.Set, controllerNamespace string) ([]client.ObjectKey, map[string][]client.ObjectKey) {
	r := newReach(base, changed, controllerNamespace)
	policies := r.walk(base, changed)
	return r.keys(), policies
}

func newReach(base, changed *offline.Set, controllerNamespace string) *reach {
	r := &reach{controllerNamespace: controllerNamespace, reached: map[client.ObjectKey]bool{}}
	for _, set := range []*offline.Set{base, changed} {
		r.gateways = append(r.gateways, pointers(set.Gateways)...)
		for _, route := range pointers(set.HTTPRoutes) {
			r.routes = append(r.routes, route)
		}
		r.routes = append(r.routes, set.OtherRoutes...)
	}
	return r
}

// walk follows every object that differs to what it reaches, and returns the policies
// that differ by kind.
func (r *reach) walk(base, changed *offline.Set) map[string][]client.ObjectKey {
	for _, name := range differing(base.Blueprints, changed.Blueprints, sameSpec) {
		r.blueprint(name.Name, base, changed)
	}
	for _, class := range differing(base.GatewayClasses, changed.GatewayClasses, sameSpec) {
		r.class(class.Name)
	}
	policies := map[string][]client.ObjectKey{
		gatewrightv1alpha1.KindGatewayClassConfig: differing(base.GatewayClassConfigs, changed.GatewayClassConfigs, sameSpec),
		gatewrightv1alpha1.KindGatewayConfig:      differing(base.GatewayConfigs, changed.GatewayConfigs, sameSpec),
	}
	for _, keys := range policies {
		for _, key := range keys {
			r.policyNamespace(key.Namespace)
		}
	}
	for _, key := range differing(base.Gateways, changed.Gateways, sameSpec) {
		r.reached[key] = true
	}
	for _, key := range differing(base.HTTPRoutes, changed.HTTPRoutes, sameSpec) {
		r.route(routes.Key{Kind: routes.KindHTTPRoute, Namespace: key.Namespace, Name: key.Name})
	}
	for _, key := range differingOthers(base.OtherRoutes, changed.OtherRoutes) {
		r.route(key)
	}
	// Namespace labels decide which listeners take a namespace's routes and which
	// policies' conditions hold: too many paths to follow, so every Gateway.
	if len(differing(base.Namespaces, changed.Namespaces, sameLabels)) > 0 {
		r.all = true
	}
	referenced := slices.Concat(
		differing(base.Services, changed.Services, func(*corev1.Service, *corev1.Service) bool { return true }),
		differing(base.Secrets, changed.Secrets, sameSecret),
		differing(base.ReferenceGrants, changed.ReferenceGrants, sameSpec),
	)
	for _, key := range referenced {
		r.referencesInto(key.Namespace)
	}
	return policies
}

func (r *reach) keys() []client.ObjectKey {
	keys := map[client.ObjectKey]bool{}
	for _, gw := range r.gateways {
		if key := client.ObjectKeyFromObject(gw); r.all || r.reached[key] {
			keys[key] = true
		}
	}
	return slices.SortedFunc(maps.Keys(keys), compareKeys)
}

// blueprint reaches the Gateways of the classes, of either side, that name it.
func (r *reach) blueprint(name string, sets ...*offline.Set) {
	for _, set := range sets {
		for _, class := range set.GatewayClasses {
			if translate.UsesBlueprint(&class, name) {
				r.class(class.Name)
			}
		}
	}
}

func (r *reach) class(name string) {
	r.byClass = true
	for _, gw := range r.gateways {
		if string(gw.Spec.GatewayClassName) == name {
			r.reached[client.ObjectKeyFromObject(gw)] = true
		}
	}
}

// policyNamespace reaches what a policy of namespace may reach: the Gateways of the
// namespace and the parents of its routes; every Gateway for the controller namespace,
// whose GatewayClassConfigs are global.
func (r *reach) policyNamespace(namespace string) {
	if namespace == r.controllerNamespace {
		r.all = true
		return
	}
	for _, gw := range r.gateways {
		if gw.Namespace == namespace {
			r.reached[client.ObjectKeyFromObject(gw)] = true
		}
	}
	for _, route := range r.routes {
		if route.GetNamespace() == namespace {
			r.parents(route)
		}
	}
}

// route reaches the parents of the route, as either side names them.
func (r *reach) route(key routes.Key) {
	for _, route := range r.routes {
		if routes.KeyOf(route) == key {
			r.parents(route)
		}
	}
}

func (r *reach) parents(route routes.Route) {
	for _, key := range attach.ParentGateways(route) {
		r.reached[key] = true
	}
}

// referencesInto reaches the Gateways whose certificateRefs, and the parents of the
// routes whose backendRefs, point into namespace: a Secret, Service or ReferenceGrant
// there may change how they resolve.
func (r *reach) referencesInto(namespace string) {
	into := func(to attach.Referent) bool { return to.Namespace == namespace }
	for _, gw := range r.gateways {
		if slices.ContainsFunc(attach.CertificateReferents(gw), into) {
			r.reached[client.ObjectKeyFromObject(gw)] = true
		}
	}
	for _, route := range r.routes {
		if slices.ContainsFunc(attach.BackendReferents(route), into) {
			r.parents(route)
		}
	}
}

// object is a pointer to a typed Kubernetes object of type T.
type object[T any] interface {
	*T
	client.Object
}

func pointers[T any, P object[T]](items []T) []P {
	out := make([]P, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// differing lists the keys of the objects that are on one side only or differ by same.
// The first object of a key counts, as for reads.
func differing[T any, P object[T]](base, changed []T, same func(a, b P) bool) []client.ObjectKey {
	byKey := func(items []T) map[client.ObjectKey]P {
		out := make(map[client.ObjectKey]P, len(items))
		for i := range items {
			key := client.ObjectKeyFromObject(P(&items[i]))
			if _, seen := out[key]; !seen {
				out[key] = &items[i]
			}
		}
		return out
	}
	old, now := byKey(base), byKey(changed)
	var out []client.ObjectKey
	for key, a := range old {
		if b, ok := now[key]; !ok || !same(a, b) {
			out = append(out, key)
		}
	}
	for key := range now {
		if _, ok := old[key]; !ok {
			out = append(out, key)
		}
	}
	slices.SortFunc(out, compareKeys)
	return out
}

// sameSpec compares what the pipeline reads of an object: its spec, labels and
// annotations (templates see the Gateway's and route's metadata), not its status or
// the metadata the API server keeps.
// differingOthers are the routes of the kinds other than HTTPRoute that differ between
// base and changed, as differing tells them.
func differingOthers(base, changed []routes.Route) []routes.Key {
	byKey := func(items []routes.Route) map[routes.Key]routes.Route {
		out := make(map[routes.Key]routes.Route, len(items))
		for _, route := range items {
			if _, seen := out[routes.KeyOf(route)]; !seen {
				out[routes.KeyOf(route)] = route
			}
		}
		return out
	}
	old, now := byKey(base), byKey(changed)
	var out []routes.Key
	for key, a := range old {
		if b, ok := now[key]; !ok || !sameSpec(a, b) {
			out = append(out, key)
		}
	}
	for key := range now {
		if _, ok := old[key]; !ok {
			out = append(out, key)
		}
	}
	return out
}

func sameSpec[P client.Object](a, b P) bool {
	return reflect.DeepEqual(a.GetLabels(), b.GetLabels()) &&
		reflect.DeepEqual(annotations(a), annotations(b)) &&
		reflect.DeepEqual(reflect.ValueOf(a).Elem().FieldByName("Spec").Interface(), reflect.ValueOf(b).Elem().FieldByName("Spec").Interface())
}

// annotations leaves out kubectl's record of the last applied manifest, which a live
// object has and the same object read from a file has not.
func annotations(obj metav1.Object) map[string]string {
	out := maps.Clone(obj.GetAnnotations())
	delete(out, corev1.LastAppliedConfigAnnotation)
	if len(out) == 0 {
		return nil
	}
	return out
}

func sameLabels(a, b *corev1.Namespace) bool { return reflect.DeepEqual(a.Labels, b.Labels) }

// sameSecret compares a Secret's type and data, stringData included: the certificate
// checks read nothing else.
func sameSecret(a, b *corev1.Secret) bool {
	return a.Type == b.Type && reflect.DeepEqual(a.Data, b.Data) && reflect.DeepEqual(a.StringData, b.StringData)
}

func compareKeys(a, b client.ObjectKey) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}
