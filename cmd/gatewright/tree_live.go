package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
)

// treeReader reads what a Gateway or HTTPRoute made from its Renderings, and the live
// state of each object they list.
type treeReader struct {
	client client.Client
	// records reads Renderings with the controller's own checks of what they may list.
	records *apply.Applier
	// blueprints parses the blueprints whose readyWhen judge the objects.
	blueprints *render.Cache
	// partial: a read the tree depends on that is refused leaves out what it would show,
	// said in the tree, rather than failing it.
	partial bool
}

func newTreeReader(k8s client.Client, partial bool) treeReader {
	return treeReader{client: k8s, records: apply.New(k8s, k8s), blueprints: &render.Cache{}, partial: partial}
}

func (r treeReader) gatewayTree(ctx context.Context, namespace, name string) (*gatewayTree, error) {
	var gw gatewayv1.Gateway
	if err := r.getOwner(ctx, "Gateway", types.NamespacedName{Namespace: namespace, Name: name}, &gw); err != nil {
		return nil, err
	}
	rec, err := r.records.LoadRecord(ctx, apply.GatewayOwner(&gw))
	if err != nil {
		return nil, err
	}
	tree := &gatewayTree{Gateway: treeNode{
		Kind: "Gateway", Namespace: namespace, Name: name,
		Conditions: conditions(gw.Status.Conditions, "Accepted", "Programmed"),
	}, Objects: []treeObject{}}
	var blueprint *gatewrightv1alpha1.GatewayClassBlueprint
	if tree.GatewayClass, tree.Blueprint, blueprint, err = r.classAndBlueprint(ctx, string(gw.Spec.GatewayClassName)); err != nil {
		return nil, err
	}
	if !rec.Exists() {
		// Nothing was rendered: the Gateway's own conditions say why, if anything does.
		tree.NotRendered = notRenderedReason(&gw)
		tree.HTTPRoutes = []routeOnGateway{}
		return tree, nil
	}
	tree.Objects = r.objects(ctx, rec.Inventory, r.judge(ctx, blueprint, rec.Revision, ""))
	tree.Revision, tree.TargetRevision = rec.Revision, rec.TargetRevision
	if tree.HTTPRoutes, tree.Unread, err = r.routesOn(ctx, &gw, blueprint); err != nil {
		return nil, err
	}
	tree.Partial = len(tree.Unread) > 0
	return tree, nil
}

// routeTree is the tree of the route of kind namespace/name.
func (r treeReader) routeTree(ctx context.Context, kind, namespace, name string) (*routeTree, error) {
	route := routes.New(kind)
	if err := r.getOwner(ctx, kind, types.NamespacedName{Namespace: namespace, Name: name}, route); err != nil {
		return nil, err
	}
	records, err := r.records.LoadRouteRecords(ctx, kind, route)
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("%s %s/%s has no Rendering yet: is the controller running, the route attached to a Gateway of a Gatewright class, and are there route templates of its kind?", kind, namespace, name)
	}
	tree := &routeTree{Kind: kindUnlessHTTPRoute(kind), HTTPRoute: namespace + "/" + name, Parents: []routeOnGateway{}}
	for _, gateway := range sortedKeys(records) {
		judge := r.parentJudge(ctx, kind, explain.ParentKey(gateway, namespace), records[gateway].Revision)
		tree.Parents = append(tree.Parents, r.routeOnGateway(ctx, route, gateway, records[gateway], judge))
	}
	return tree, nil
}

// parentJudge judges the objects of a route of kind on the Gateway key as judge does,
// with the blueprint of the Gateway's class; when the Gateway, its class or blueprint
// cannot be read, by nothing: each object's readiness is then unknown, and says why.
func (r treeReader) parentJudge(ctx context.Context, kind string, key client.ObjectKey, revision int64) objectJudge {
	var gw gatewayv1.Gateway
	if err := r.client.Get(ctx, key, &gw); err != nil {
		return unjudged(fmt.Errorf("reading Gateway %s: %w", key, err))
	}
	_, _, blueprint, err := r.classAndBlueprint(ctx, string(gw.Spec.GatewayClassName))
	if err != nil {
		return unjudged(err)
	}
	return r.judge(ctx, blueprint, revision, kind)
}

// getOwner reads the Gateway or route the tree is of, saying plainly when it is missing.
func (r treeReader) getOwner(ctx context.Context, kind string, key types.NamespacedName, obj client.Object) error {
	err := r.client.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%s %s not found", kind, key)
	}
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", kind, key, err)
	}
	return nil
}

// classAndBlueprint reads the GatewayClass named className and the GatewayClassBlueprint
// it refers to; the blueprint is nil when the class names none or it is missing.
func (r treeReader) classAndBlueprint(ctx context.Context, className string) (treeNode, *treeNode, *gatewrightv1alpha1.GatewayClassBlueprint, error) {
	classNode := treeNode{Kind: "GatewayClass", Name: className}
	var class gatewayv1.GatewayClass
	if found, err := r.getPart(ctx, client.ObjectKey{Name: className}, &class, &classNode); err != nil || !found {
		return classNode, nil, nil, err
	}
	classNode.Conditions = conditions(class.Status.Conditions, "Accepted")
	name, ok := translate.BlueprintRef(&class)
	if !ok {
		return classNode, nil, nil, nil
	}
	blueprintNode := &treeNode{Kind: gatewrightv1alpha1.KindGatewayClassBlueprint, Name: name}
	var blueprint gatewrightv1alpha1.GatewayClassBlueprint
	if found, err := r.getPart(ctx, client.ObjectKey{Name: name}, &blueprint, blueprintNode); err != nil || !found {
		return classNode, blueprintNode, nil, err
	}
	blueprintNode.Conditions = conditions(blueprint.Status.Conditions, "Accepted")
	return classNode, blueprintNode, &blueprint, nil
}

// getPart reads an object the tree shows but does not start from; a missing one is
// marked so in node rather than failing the tree.
func (r treeReader) getPart(ctx context.Context, key client.ObjectKey, obj client.Object, node *treeNode) (bool, error) {
	err := r.client.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		node.Missing = true
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s %s: %w", node.Kind, strings.TrimPrefix(key.String(), "/"), err)
	}
	return true, nil
}

// routesOn lists the HTTPRoutes rendered on gw, found across namespaces by the labels
// of their Renderings. A caller who may not list them in every namespace (a tenant) gets
// those of gw's namespace when gw takes routes from its own namespace only, which are
// then all of them; else the refused list is an error, or, with r.partial, what is not
// shown (unread).
func (r treeReader) routesOn(ctx context.Context, gw *gatewayv1.Gateway, blueprint *gatewrightv1alpha1.GatewayClassBlueprint) (_ []routeOnGateway, unread []string, err error) {
	selector := labels.SelectorFromSet(labels.Set{
		gatewrightv1alpha1.LabelManagedBy:        gatewrightv1alpha1.ManagedByValue,
		gatewayv1.GatewayNameLabelKey:            gw.Name,
		gatewrightv1alpha1.LabelGatewayNamespace: gw.Namespace,
	})
	isRoute, _ := labels.NewRequirement(gatewrightv1alpha1.LabelHTTPRouteName, selection.Exists, nil)
	ofRoutes := client.MatchingLabelsSelector{Selector: selector.Add(*isRoute)}
	var list gatewrightv1alpha1.RenderingList
	err = r.client.List(ctx, &list, ofRoutes)
	if apierrors.IsForbidden(err) {
		if !attach.SameNamespaceOnly(gw) {
			refused := fmt.Sprintf("Renderings in all namespaces: missing permission list renderings.gatewright.dev (the HTTPRoutes of other namespaces that Gateway %s/%s takes are not shown)", gw.Namespace, gw.Name)
			if !r.partial {
				return nil, nil, &unreadError{reads: []string{refused}, err: err}
			}
			unread = append(unread, refused)
		}
		err = r.client.List(ctx, &list, ofRoutes, client.InNamespace(gw.Namespace))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing the Renderings of the HTTPRoutes on Gateway %s/%s: %w", gw.Namespace, gw.Name, err)
	}
	owners := map[routes.Key]bool{}
	for _, rendering := range list.Items {
		if routes.IsKind(rendering.Owner.Kind) {
			owners[routes.Key{Kind: rendering.Owner.Kind, Namespace: rendering.Namespace, Name: rendering.Owner.Name}] = true
		}
	}
	gateway := gw.Namespace + "/" + gw.Name
	out := []routeOnGateway{}
	for _, key := range sortedRouteKeys(owners) {
		route := routes.New(key.Kind)
		node := treeNode{Kind: key.Kind}
		found, err := r.getPart(ctx, types.NamespacedName{Namespace: key.Namespace, Name: key.Name}, route, &node)
		if err != nil {
			return nil, nil, err
		}
		if !found {
			// A route deleted before its Renderings were cleaned up: what they list remains.
			route.SetNamespace(key.Namespace)
			route.SetName(key.Name)
		}
		records, err := r.records.LoadRouteRecords(ctx, key.Kind, route)
		if err != nil {
			return nil, nil, err
		}
		if rec := records[gateway]; rec != nil {
			parent := r.routeOnGateway(ctx, route, gateway, rec, r.judge(ctx, blueprint, rec.Revision, key.Kind))
			parent.Missing = !found
			out = append(out, parent)
		}
	}
	return out, unread, nil
}

// routeOnGateway is route on the Gateway "namespace/name", with the objects of rec.
func (r treeReader) routeOnGateway(ctx context.Context, route routes.Route, gateway string, rec *apply.Record, judge objectJudge) routeOnGateway {
	return routeOnGateway{
		Kind:       kindUnlessHTTPRoute(routes.KindOf(route)),
		HTTPRoute:  route.GetNamespace() + "/" + route.GetName(),
		Gateway:    gateway,
		Conditions: conditions(routeConditionsOn(route, gateway), "Accepted", "ResolvedRefs"),
		Objects:    r.objects(ctx, rec.Inventory, judge),
	}
}

// notRenderedReason says why gw has no Rendering: its conditions that are not True, with
// their messages, or what to check when it has none.
func notRenderedReason(gw *gatewayv1.Gateway) string {
	var reasons []string
	for _, c := range gw.Status.Conditions {
		if c.Status != metav1.ConditionTrue && c.ObservedGeneration == gw.Generation {
			reasons = append(reasons, fmt.Sprintf("%s=%s/%s: %s", c.Type, c.Status, c.Reason, c.Message))
		}
	}
	if len(reasons) == 0 {
		return "no condition says why: is the controller running, and is the Gateway's class one of Gatewright's?"
	}
	return strings.Join(reasons, "; ")
}

// routeConditionsOn are the conditions Gatewright set on route for the Gateway "namespace/name".
func routeConditionsOn(route routes.Route, gateway string) []metav1.Condition {
	for _, parent := range routes.Status(route).Parents {
		key, isGateway := attach.ParentGateway(route, parent.ParentRef)
		if isGateway && gatewrightv1alpha1.IsGatewright(parent.ControllerName) && key.String() == gateway {
			return parent.Conditions
		}
	}
	return nil
}

// objects reads each object of inv to tell whether it is ready now, by judge; one that
// cannot be read, or judged, is shown with its error rather than failing the tree.
func (r treeReader) objects(ctx context.Context, inv apply.Inventory, judge objectJudge) []treeObject {
	out := make([]treeObject, 0, len(inv))
	for _, e := range inv {
		obj := treeObject{
			APIVersion: e.APIVersion, Kind: e.Kind, Namespace: e.Namespace, Name: e.Name,
			Template: e.Template, Hash: e.Hash, RecordedReady: e.Ready,
		}
		live := &unstructured.Unstructured{}
		live.SetAPIVersion(e.APIVersion)
		live.SetKind(e.Kind)
		err := r.client.Get(ctx, client.ObjectKey{Namespace: e.Namespace, Name: e.Name}, live)
		switch {
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
			obj.Ready = readyMissing
		case err != nil:
			obj.Ready, obj.Error = readyUnknown, err.Error()
		case judge.err != nil:
			obj.Ready, obj.Error = readyUnknown, "cannot judge it by its template's readyWhen: "+judge.err.Error()
		default:
			ready, reason := judge.ready(live, e.Template)
			if !ready && reason == "" {
				_, reason = apply.Readiness(live) // kstatus's message, where no readyWhen gives one
			}
			obj.Ready, obj.Reason = readyFalse, reason
			if ready {
				obj.Ready = readyTrue
			}
		}
		out = append(out, obj)
	}
	return out
}

// conditions picks the conditions of types, in that order; a type not set is Unknown.
func conditions(all []metav1.Condition, types ...string) []treeCondition {
	out := make([]treeCondition, 0, len(types))
	for _, t := range types {
		c := treeCondition{Type: t, Status: string(metav1.ConditionUnknown)}
		if found := meta.FindStatusCondition(all, t); found != nil {
			c.Status, c.Reason, c.Message = string(found.Status), found.Reason, found.Message
		}
		out = append(out, c)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sortedRouteKeys are the routes of set by namespace/name, then kind in
// routes.Kinds order.
func sortedRouteKeys(set map[routes.Key]bool) []routes.Key {
	out := make([]routes.Key, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Namespace+"/"+out[i].Name, out[j].Namespace+"/"+out[j].Name
		if a != b {
			return a < b
		}
		return slices.Index(routes.Kinds, out[i].Kind) < slices.Index(routes.Kinds, out[j].Kind)
	})
	return out
}

// kindUnlessHTTPRoute is kind, empty for an HTTPRoute: the trees name a route's kind only
// when it is not the one they always showed.
func kindUnlessHTTPRoute(kind string) string {
	if kind == routes.KindHTTPRoute {
		return ""
	}
	return kind
}
