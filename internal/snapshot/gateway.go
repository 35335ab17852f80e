package snapshot

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// ForGatewayAmong gathers the snapshot of gw, of class: its blueprint, the policies of
// the controller's and the Gateway's namespaces, and the routes attached among
// candidates (those naming it, from an index) with their backendRefs resolved (exists
// says which Services exist), with its listeners as Listeners judged them.
func ForGatewayAmong(ctx context.Context, r client.Reader, controllerNamespace string, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, candidates []gatewayv1.HTTPRoute, judged []listeners.Status, exists attach.ServiceExists) (*translate.Gateway, error) {
	routed, err := ForRouteTable(ctx, r, gw, class, candidates, judged, exists)
	if err != nil {
		return nil, err
	}
	snap, err := ForValues(ctx, r, controllerNamespace, gw, class, nil)
	if err != nil {
		return nil, err
	}
	snap.Listeners, snap.Routes, snap.Attached = routed.Listeners, routed.Routes, routed.Attached
	snap.RouteListeners, snap.RouteBackends = routed.RouteListeners, routed.RouteBackends
	return snap, nil
}

// ForRouteTable gathers what gw's route table (translate.Gateway.RouteTable) is computed
// from, and nothing else: the routes attached among candidates with their backendRefs
// resolved, and its listeners as Listeners judged them. Its snapshot has no values
// inputs: `gatewright explain request` answers from it without reading the blueprint
// or the policies, which the answer does not depend on.
func ForRouteTable(ctx context.Context, r client.Reader, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, candidates []gatewayv1.HTTPRoute, judged []listeners.Status, exists attach.ServiceExists) (*translate.Gateway, error) {
	a, err := AttachedAmong(ctx, r, gw, candidates)
	if err != nil {
		return nil, err
	}
	snap := &translate.Gateway{Gateway: gw, Class: class}
	snap.Listeners, snap.Routes, snap.Attached, snap.RouteListeners = judged, a.Routes, a.Counts, a.Listeners
	snap.RouteBackends = make(map[types.NamespacedName][]attach.BackendRef, len(a.Routes))
	for i := range a.Routes {
		route := &a.Routes[i]
		backends, err := BackendRefs(ctx, r, route, exists)
		if err != nil {
			return nil, err
		}
		snap.RouteBackends[client.ObjectKeyFromObject(route)] = backends.BackendRefs
	}
	return snap, nil
}

// RoutesOf adds to the values inputs of snap, a Gateway's snapshot, the policies of
// its routes' namespaces, so that each route translates on snap as ForRoute's would.
func RoutesOf(ctx context.Context, r client.Reader, snap *translate.Gateway) ([]translate.Route, error) {
	seen := map[string]bool{snap.Gateway.Namespace: true, snap.Values.ControllerNamespace: true}
	out := make([]translate.Route, len(snap.Routes))
	for i := range snap.Routes {
		route := &snap.Routes[i]
		if !seen[route.Namespace] {
			seen[route.Namespace] = true
			if err := addPolicies(ctx, r, &snap.Values, route.Namespace); err != nil {
				return nil, err
			}
		}
		out[i] = translate.Route{Route: route, BackendRefs: snap.RouteBackends[client.ObjectKeyFromObject(route)]}
	}
	return out, nil
}

// ForValues gathers what the values of gw, of class, are computed from, or those of
// route on gw when route is not nil: the blueprint and the policies of the controller's,
// the Gateway's and the route's namespaces, without the routes on gw or its listeners.
func ForValues(ctx context.Context, r client.Reader, controllerNamespace string, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, route *gatewayv1.HTTPRoute) (*translate.Gateway, error) {
	namespaces := []string{gw.Namespace}
	if route != nil {
		namespaces = append(namespaces, route.Namespace)
	}
	in, err := Values(ctx, r, controllerNamespace, class, namespaces...)
	if err != nil {
		return nil, err
	}
	return &translate.Gateway{Gateway: gw, Class: class, Values: in}, nil
}

// Values reads the blueprint of class and the policies that may apply to the Gateways
// of the given namespaces and to routes in them: those of the controller namespace and
// of each namespace. The values engine ignores those that do not apply.
func Values(ctx context.Context, r client.Reader, controllerNamespace string, class *gatewayv1.GatewayClass, namespaces ...string) (values.Inputs, error) {
	bp, err := Blueprint(ctx, r, class)
	if err != nil {
		return values.Inputs{}, err
	}
	in := values.Inputs{ControllerNamespace: controllerNamespace, Blueprint: bp}
	for _, namespace := range unique(append([]string{controllerNamespace}, namespaces...)) {
		if err := addPolicies(ctx, r, &in, namespace); err != nil {
			return values.Inputs{}, err
		}
	}
	return in, nil
}

// addPolicies adds the policies of namespace to in.
func addPolicies(ctx context.Context, r client.Reader, in *values.Inputs, namespace string) error {
	var classConfigs gatewrightv1alpha1.GatewayClassConfigList
	if err := r.List(ctx, &classConfigs, client.InNamespace(namespace)); err != nil {
		return err
	}
	in.GatewayClassConfigs = append(in.GatewayClassConfigs, classConfigs.Items...)
	var configs gatewrightv1alpha1.GatewayConfigList
	if err := r.List(ctx, &configs, client.InNamespace(namespace)); err != nil {
		return err
	}
	in.GatewayConfigs = append(in.GatewayConfigs, configs.Items...)
	return nil
}

// Attachment is where routes attach on a Gateway.
type Attachment struct {
	// Routes are the routes attached to at least one listener, sorted by namespace/name.
	Routes []gatewayv1.HTTPRoute
	// Listeners are the listeners each route attaches to, by namespace/name.
	Listeners map[types.NamespacedName][]gatewayv1.SectionName
	// Counts are how many routes attach to each listener.
	Counts map[gatewayv1.SectionName]int32
}

// AttachedAmong finds the HTTPRoutes among routes attached to gw by the Gateway API
// rules.
func AttachedAmong(ctx context.Context, r client.Reader, gw *gatewayv1.Gateway, routes []gatewayv1.HTTPRoute) (Attachment, error) {
	a := Attachment{Listeners: map[types.NamespacedName][]gatewayv1.SectionName{}, Counts: map[gatewayv1.SectionName]int32{}}
	namespaceLabels := map[string]map[string]string{}
	for i := range routes {
		route := &routes[i]
		if len(attach.ParentRefsTo(route, gw)) == 0 {
			continue
		}
		labels, ok := namespaceLabels[route.Namespace]
		if !ok {
			var err error
			if labels, err = NamespaceLabels(ctx, r, route.Namespace); err != nil {
				return Attachment{}, err
			}
			namespaceLabels[route.Namespace] = labels
		}
		taken := attach.Listeners(gw, route, labels)
		for _, l := range taken {
			a.Counts[l]++
		}
		if len(taken) > 0 {
			a.Routes = append(a.Routes, *route)
			a.Listeners[client.ObjectKeyFromObject(route)] = taken
		}
	}
	sort.Slice(a.Routes, func(i, j int) bool {
		return a.Routes[i].Namespace+"/"+a.Routes[i].Name < a.Routes[j].Namespace+"/"+a.Routes[j].Name
	})
	return a, nil
}

// NamespaceLabels are the labels of a namespace, which listeners select routes by; a
// namespace that is not there has none.
func NamespaceLabels(ctx context.Context, r client.Reader, name string) (map[string]string, error) {
	var ns corev1.Namespace
	if err := r.Get(ctx, client.ObjectKey{Name: name}, &ns); client.IgnoreNotFound(err) != nil {
		return nil, err
	}
	return ns.Labels, nil
}

func unique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// ParentGateways are the Gateways a route's parentRefs name that exist, each once, in
// the order the route names them.
func ParentGateways(ctx context.Context, r client.Reader, route *gatewayv1.HTTPRoute) ([]*gatewayv1.Gateway, error) {
	seen := map[client.ObjectKey]bool{}
	var out []*gatewayv1.Gateway
	for _, ref := range route.Spec.ParentRefs {
		key, isGateway := attach.ParentGateway(route, ref)
		if !isGateway || seen[key] {
			continue
		}
		seen[key] = true
		gw := &gatewayv1.Gateway{}
		if err := r.Get(ctx, key, gw); err != nil {
			if client.IgnoreNotFound(err) != nil {
				return nil, err
			}
			continue
		}
		out = append(out, gw)
	}
	return out, nil
}
