package render

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/manifest"
	routekinds "github.com/gatewright/gatewright/internal/routes"
)

// placement says where the objects of one render go and how they are labelled.
type placement struct {
	namespace    string            // of the Gateway, or of the route for route templates
	labels       map[string]string // Gatewright's own, they win over everything
	infraLabels  map[string]string // the Gateway's spec.infrastructure, templates win over them;
	infraAnnots  map[string]string // only on namespaced objects in the Gateway's namespace
	isNamespaced func(schema.GroupVersionKind) (bool, error)
}

func newPlacement(gw *gatewayv1.Gateway, route routekinds.Route, isNamespaced func(schema.GroupVersionKind) (bool, error)) placement {
	p := placement{
		namespace: gw.Namespace,
		labels: map[string]string{
			gatewrightv1alpha1.LabelManagedBy:        gatewrightv1alpha1.ManagedByValue,
			gatewayv1.GatewayNameLabelKey:            gw.Name,
			gatewayv1.GatewayClassNameLabelKey:       string(gw.Spec.GatewayClassName),
			gatewrightv1alpha1.LabelGatewayNamespace: gw.Namespace,
		},
		infraLabels:  map[string]string{},
		infraAnnots:  map[string]string{},
		isNamespaced: isNamespaced,
	}
	if route != nil {
		p.namespace = route.GetNamespace()
		p.labels[gatewrightv1alpha1.LabelHTTPRouteName] = route.GetName()
		p.labels[gatewrightv1alpha1.LabelHTTPRouteNamespace] = route.GetNamespace()
		if kind := routekinds.KindOf(route); kind != routekinds.KindHTTPRoute {
			p.labels[gatewrightv1alpha1.LabelRouteKind] = kind
		}
	}
	// The Gateway's owner speaks for its namespace only: other controllers act on labels
	// and annotations (Argo CD's tracking id, external-dns's hostname), so an HTTPRoute's
	// objects in another namespace, and cluster-scoped objects, do not get them.
	if infra := gw.Spec.Infrastructure; infra != nil && p.namespace == gw.Namespace {
		for k, v := range infra.Labels {
			p.infraLabels[string(k)] = string(v)
		}
		for k, v := range infra.Annotations {
			p.infraAnnots[string(k)] = string(v)
		}
	}
	return p
}

// objects decodes what one template rendered, checks every object against the
// namespace and cluster-scope rules, and stamps it.
func (b *Blueprint) objects(rt resourceTemplate, rendered string, p placement) ([]*unstructured.Unstructured, error) {
	objs, err := manifest.Decode([]byte(rendered))
	if err != nil {
		return nil, &Error{Blueprint: b.name, Template: rt.id, Message: "the rendered output is not valid YAML: " + err.Error()}
	}
	for _, obj := range objs {
		if err := b.place(obj, rt, p); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

func (b *Blueprint) place(obj *unstructured.Unstructured, rt resourceTemplate, p placement) error {
	gvk := obj.GroupVersionKind()
	fail := func(format string, args ...any) *Error {
		return objectError(b.name, rt.id, gvk.Kind, obj.GetName(), format, args...)
	}
	if obj.GetName() == "" {
		return fail("metadata.name is required")
	}
	namespaced, err := p.scope(gvk, b.clusterScoped)
	if err != nil {
		e := fail("%v", err)
		e.Cause = err
		return e
	}
	switch {
	case !namespaced && !b.clusterScoped[gvk.GroupKind()]:
		return fail("%s is cluster-scoped and not in the blueprint's clusterScopedKinds", groupKindString(gvk.GroupKind()))
	case !namespaced && obj.GetNamespace() != "":
		return fail("%s is cluster-scoped: it takes no namespace", groupKindString(gvk.GroupKind()))
	case namespaced && obj.GetNamespace() != "" && obj.GetNamespace() != p.namespace:
		return fail("must be in namespace %s, not %s: objects stay in the namespace of their Gateway or HTTPRoute", p.namespace, obj.GetNamespace())
	case namespaced:
		obj.SetNamespace(p.namespace)
	}

	infraLabels, infraAnnots := p.infraLabels, p.infraAnnots
	if !namespaced {
		infraLabels, infraAnnots = nil, nil
	}
	labels := merged(infraLabels, obj.GetLabels(), p.labels, map[string]string{gatewrightv1alpha1.LabelTemplate: rt.name})
	if err := checkLabels(labels); err != "" {
		// Caught here, a Gateway or route name too long for a label (names may have 253
		// characters, label values 63) says where; the API server would only refuse the apply.
		return fail("%s", err)
	}
	obj.SetLabels(labels)
	if annotations := merged(infraAnnots, obj.GetAnnotations()); len(annotations) > 0 {
		obj.SetAnnotations(annotations)
	}
	return nil
}

// scope tells whether a kind is namespaced: by asking the cluster when the caller can,
// otherwise by the blueprint's clusterScopedKinds and the well-known cluster-scoped kinds.
func (p placement) scope(gvk schema.GroupVersionKind, allowed map[schema.GroupKind]bool) (bool, error) {
	if p.isNamespaced != nil {
		return p.isNamespaced(gvk)
	}
	gk := gvk.GroupKind()
	return !allowed[gk] && !knownClusterScoped[gk], nil
}

// checkLabels describes the first label, by key, that the API server would refuse.
func checkLabels(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for key := range labels {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			return fmt.Sprintf("label key %q: %s", key, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(labels[key]); len(errs) > 0 {
			return fmt.Sprintf("label %s=%q: %s", key, labels[key], strings.Join(errs, "; "))
		}
	}
	return ""
}

// merged returns the union of maps, later ones winning.
func merged(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func groupKindString(gk schema.GroupKind) string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}
