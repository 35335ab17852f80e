// Package offline reads Gateway API and Gatewright objects from YAML files, so that the
// offline commands (values, render) run the same values and render code as the
// controller on objects that come from files instead of the API server.
package offline

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/manifest"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// Set holds the objects read from files. Namespaced objects without a namespace are
// put in "default", as kubectl would.
type Set struct {
	Blueprints     []gatewrightv1alpha1.GatewayClassBlueprint
	GatewayClasses []gatewayv1.GatewayClass
	Gateways       []gatewayv1.Gateway
	HTTPRoutes     []gatewayv1.HTTPRoute
	// ListenerSets add listeners to the Gateways they name, which routes attach to.
	ListenerSets []gatewayv1.ListenerSet
	// OtherRoutes are the routes of the other standard kinds (GRPCRoute, TLSRoute,
	// TCPRoute, UDPRoute), handed to gateway templates as the controller hands them.
	OtherRoutes         []routes.Route
	GatewayClassConfigs []gatewrightv1alpha1.GatewayClassConfig
	GatewayConfigs      []gatewrightv1alpha1.GatewayConfig
	// Namespaces are read for their labels, which listeners may select routes by.
	Namespaces []corev1.Namespace
	// Services and ReferenceGrants decide which backendRefs resolve (.BackendRefs).
	Services        []corev1.Service
	ReferenceGrants []gatewayv1.ReferenceGrant
	// Secrets and ReferenceGrants decide which certificateRefs resolve (.Listeners); of a
	// Secret only the verdict counts, never its data.
	Secrets []corev1.Secret
	// SecretsUnread says that the Secrets could not be read (the caller may not): a
	// certificateRef to a Secret the set does not hold then counts as resolved, so that a
	// diff shows what would change rather than listeners nobody broke.
	SecretsUnread bool
	// ServicesUnread says that the Services of a namespace that backendRefs name could
	// not be read: a backendRef to a Service the set does not hold then counts as
	// resolved, for the same reason.
	ServicesUnread bool

	// Revisions are the blueprints' revisions, and Renderings the records whose part 0
	// says which revision a rollout assigned a Gateway: together they say which revision
	// each Gateway runs. Without them, every Gateway computes with the live spec.
	Revisions  []gatewrightv1alpha1.GatewayClassBlueprintRevision
	Renderings []gatewrightv1alpha1.Rendering

	// Overrides are values from the command line, merged over the values of every
	// Gateway and HTTPRoute that Render renders (translate.Gateway.Overrides).
	Overrides []map[string]any

	// places says where the templates of blueprints read by Load are (see Locate).
	places map[string]map[string]templatePlace
	// index finds objects without scanning the slices above (index.go).
	index indexLock
	// proposed names the blueprints whose spec is a change's new revision (With).
	proposed map[string]bool
}

// Load reads every .yaml, .yml and .json file of the given files and folders (folders
// recursively, in name order).
func Load(paths ...string) (*Set, error) {
	set := &Set{}
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || (path != root && !isManifest(path)) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := set.Add(data); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			set.recordPlaces(path, data)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return set, nil
}

func isManifest(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// Add reads the objects of a YAML stream. Kinds Gatewright does not read are skipped.
func (s *Set) Add(data []byte) error {
	objs, err := manifest.Decode(data)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := s.add(obj); err != nil {
			return fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

func (s *Set) add(obj *unstructured.Unstructured) error {
	group := obj.GroupVersionKind().Group
	switch {
	case group == gatewrightv1alpha1.GroupVersion.Group && obj.GetKind() == gatewrightv1alpha1.KindGatewayClassBlueprint:
		return appendAs(obj, &s.Blueprints, false)
	case group == gatewrightv1alpha1.GroupVersion.Group && obj.GetKind() == gatewrightv1alpha1.KindGatewayClassConfig:
		return appendAs(obj, &s.GatewayClassConfigs, true)
	case group == gatewrightv1alpha1.GroupVersion.Group && obj.GetKind() == gatewrightv1alpha1.KindGatewayConfig:
		return appendAs(obj, &s.GatewayConfigs, true)
	case group == gatewrightv1alpha1.GroupVersion.Group && obj.GetKind() == gatewrightv1alpha1.KindGatewayClassBlueprintRevision:
		return appendAs(obj, &s.Revisions, false)
	case group == gatewrightv1alpha1.GroupVersion.Group && obj.GetKind() == gatewrightv1alpha1.KindRendering:
		return appendAs(obj, &s.Renderings, true)
	case group == gatewayv1.GroupName && obj.GetKind() == "GatewayClass":
		return appendAs(obj, &s.GatewayClasses, false)
	case group == gatewayv1.GroupName && obj.GetKind() == "Gateway":
		return appendAs(obj, &s.Gateways, true)
	case group == gatewayv1.GroupName && obj.GetKind() == "HTTPRoute":
		return appendAs(obj, &s.HTTPRoutes, true)
	case group == gatewayv1.GroupName && obj.GetKind() == "ListenerSet":
		return appendAs(obj, &s.ListenerSets, true)
	case group == gatewayv1.GroupName && routes.IsKind(obj.GetKind()):
		return s.addOtherRoute(obj)
	case group == "" && obj.GetKind() == "Namespace":
		return appendAs(obj, &s.Namespaces, false)
	case group == "" && obj.GetKind() == "Service":
		return appendAs(obj, &s.Services, true)
	case group == "" && obj.GetKind() == "Secret":
		return appendAs(obj, &s.Secrets, true)
	case group == gatewayv1.GroupName && obj.GetKind() == "ReferenceGrant":
		return appendAs(obj, &s.ReferenceGrants, true)
	}
	return nil
}

// addOtherRoute adds a route of a standard kind other than HTTPRoute.
func (s *Set) addOtherRoute(obj *unstructured.Unstructured) error {
	if obj.GetNamespace() == "" {
		obj.SetNamespace("default")
	}
	route := routes.New(obj.GetKind())
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj.Object, route, true); err != nil {
		return err
	}
	s.OtherRoutes = append(s.OtherRoutes, route)
	return nil
}

func appendAs[T any](obj *unstructured.Unstructured, list *[]T, namespaced bool) error {
	if namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace("default")
	}
	var typed T
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj.Object, &typed, true); err != nil {
		return err
	}
	*list = append(*list, typed)
	return nil
}

// Gateway finds a Gateway by namespace and name.
func (s *Set) Gateway(namespace, name string) (*gatewayv1.Gateway, error) {
	for i := range s.Gateways {
		if gw := &s.Gateways[i]; gw.Namespace == namespace && gw.Name == name {
			return gw, nil
		}
	}
	return nil, fmt.Errorf("no Gateway %s/%s in the input", namespace, name)
}

// GatewrightGateways are the Gateways of the set whose class is in it and Gatewright's.
func (s *Set) GatewrightGateways() []gatewayv1.Gateway {
	var out []gatewayv1.Gateway
	for i := range s.Gateways {
		if translate.IsGatewrightClass(s.class(&s.Gateways[i])) {
			out = append(out, s.Gateways[i])
		}
	}
	return out
}

// Route finds a route of kind by namespace and name.
func (s *Set) Route(kind, namespace, name string) (routes.Route, error) {
	if kind == routes.KindHTTPRoute {
		route, err := s.HTTPRoute(namespace, name)
		if err != nil {
			return nil, err // not a nil *HTTPRoute in a Route
		}
		return route, nil
	}
	for _, route := range s.OtherRoutes {
		if routes.KindOf(route) == kind && route.GetNamespace() == namespace && route.GetName() == name {
			return route, nil
		}
	}
	return nil, fmt.Errorf("no %s %s/%s in the input", kind, namespace, name)
}

// HTTPRoute finds an HTTPRoute by namespace and name.
func (s *Set) HTTPRoute(namespace, name string) (*gatewayv1.HTTPRoute, error) {
	for i := range s.HTTPRoutes {
		if route := &s.HTTPRoutes[i]; route.Namespace == namespace && route.Name == name {
			return route, nil
		}
	}
	return nil, fmt.Errorf("no HTTPRoute %s/%s in the input", namespace, name)
}

// Snapshot gathers from the set what the values and templates of gw are computed from,
// as the controller would from the cluster.
func (s *Set) Snapshot(controllerNamespace string, gw *gatewayv1.Gateway) (*translate.Gateway, error) {
	class, err := s.gatewrightClass(gw)
	if err != nil {
		return nil, err
	}
	snap, err := s.gatherer(controllerNamespace).Gateway(context.Background(), gw, class, snapshot.Among(s.routesNaming(gw)), snapshot.AmongOthers(s.OtherRoutes))
	if err != nil {
		return nil, fmt.Errorf("GatewayClass %s: %w", class.Name, err)
	}
	snap.Overrides = s.Overrides
	return snap, nil
}

// RouteTable computes gw's route table from the set, as the controller would from the
// cluster; unlike Snapshot, it needs no policies, and the blueprint only for what it
// serves.
func (s *Set) RouteTable(gw *gatewayv1.Gateway) (*routing.Table, error) {
	class, err := s.gatewrightClass(gw)
	if err != nil {
		return nil, err
	}
	snap, err := s.gatherer("").Gateway(context.Background(), gw, class, snapshot.Among(s.routesNaming(gw)), snapshot.AmongOthers(s.OtherRoutes), snapshot.RouteTableOnly())
	if err != nil {
		return nil, fmt.Errorf("Gateway %s/%s: %w", gw.Namespace, gw.Name, err)
	}
	table, _ := snap.RouteTable()
	return table, nil
}

// ForValues gathers from the set what the values of gw, or of route on it when route is
// not nil, are computed from, without the routes on gw or its listeners.
func (s *Set) ForValues(controllerNamespace string, gw *gatewayv1.Gateway, route routes.Route) (*translate.Gateway, error) {
	class, err := s.gatewrightClass(gw)
	if err != nil {
		return nil, err
	}
	g := s.gatherer(controllerNamespace)
	var snap *translate.Gateway
	if route != nil {
		snap, err = g.Route(context.Background(), route, gw, class)
	} else {
		snap, err = g.Gateway(context.Background(), gw, class, snapshot.ValuesOnly())
	}
	if err != nil {
		return nil, fmt.Errorf("GatewayClass %s: %w", class.Name, err)
	}
	snap.Overrides = s.Overrides
	return snap, nil
}

// gatherer gathers from the set as the controller does from the cluster, but that the
// set may hold no revisions (its Gateways then compute with the live spec) and proposes
// the specs of the blueprints a change makes a new revision of (With).
func (s *Set) gatherer(controllerNamespace string) *snapshot.Gatherer {
	return &snapshot.Gatherer{Reader: s, ControllerNamespace: controllerNamespace, SecretCheck: s.secretCheck, ServiceExists: s.serviceExists,
		Proposed: s.proposed, LiveWithoutRevisions: true, ServesListenerSets: true}
}

// gatewrightClass is gw's class, which must be in the set and Gatewright's.
func (s *Set) gatewrightClass(gw *gatewayv1.Gateway) (*gatewayv1.GatewayClass, error) {
	className := string(gw.Spec.GatewayClassName)
	class := s.class(gw)
	switch {
	case class == nil:
		return nil, fmt.Errorf("Gateway %s/%s: no GatewayClass %s in the input", gw.Namespace, gw.Name, className)
	case !translate.IsGatewrightClass(class):
		return nil, fmt.Errorf("GatewayClass %s: controllerName is %s, not %s", className, class.Spec.ControllerName, gatewrightv1alpha1.ControllerName)
	}
	return class, nil
}

// Routes are the routes of snap, a snapshot of the set, ready to translate on it.
func (s *Set) Routes(snap *translate.Gateway) ([]translate.Route, error) {
	return s.gatherer(snap.Values.ControllerNamespace).Routes(context.Background(), snap)
}
