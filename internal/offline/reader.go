package offline

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// A Set answers reads like the API server would, so that internal/snapshot gathers from
// files exactly what it gathers from a cluster.
var _ client.Reader = (*Set)(nil)

// Get copies the object of key into obj, or returns a NotFound error. A Namespace that
// the files do not hold is there all the same, with the kubernetes.io/metadata.name
// label the API server gives every namespace.
func (s *Set) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	idx := s.indexed()
	switch obj := obj.(type) {
	case *gatewrightv1alpha1.GatewayClassBlueprint:
		return find(s.Blueprints, idx.blueprints, key, obj, "gatewayclassblueprints")
	case *gatewrightv1alpha1.GatewayClassBlueprintRevision:
		return find(s.Revisions, idx.revisions, key, obj, "gatewayclassblueprintrevisions")
	case *gatewrightv1alpha1.Rendering:
		return find(s.Renderings, idx.renderings, key, obj, "renderings")
	case *gatewayv1.GatewayClass:
		return find(s.GatewayClasses, idx.classes, key, obj, "gatewayclasses")
	case *gatewayv1.Gateway:
		return find(s.Gateways, idx.gateways, key, obj, "gateways")
	case *gatewayv1.HTTPRoute:
		return find(s.HTTPRoutes, idx.routes, key, obj, "httproutes")
	case *gatewayv1.ListenerSet:
		return find(s.ListenerSets, idx.listenerSets, key, obj, "listenersets")
	case *corev1.Service:
		return find(s.Services, idx.services, key, obj, "services")
	case *corev1.Namespace:
		if err := find(s.Namespaces, idx.namespaces, key, obj, "namespaces"); err != nil {
			*obj = corev1.Namespace{}
			obj.Name = key.Name
		}
		labels := map[string]string{corev1.LabelMetadataName: key.Name}
		for k, v := range obj.Labels {
			labels[k] = v
		}
		obj.Labels = labels
		return nil
	}
	return fmt.Errorf("files are not read for %T", obj)
}

// List copies the objects of a kind into list, only those of one namespace with
// client.InNamespace.
func (s *Set) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	var options client.ListOptions
	options.ApplyOptions(opts)
	idx := s.indexed()
	switch list := list.(type) {
	case *gatewrightv1alpha1.GatewayClassConfigList:
		list.Items = inNamespace(s.GatewayClassConfigs, idx.classConfigs, options.Namespace)
	case *gatewrightv1alpha1.GatewayConfigList:
		list.Items = inNamespace(s.GatewayConfigs, idx.configs, options.Namespace)
	case *gatewayv1.HTTPRouteList:
		list.Items = inNamespace(s.HTTPRoutes, idx.routes, options.Namespace)
	case *gatewayv1.ListenerSetList:
		list.Items = inNamespace(s.ListenerSets, idx.listenerSets, options.Namespace)
	case *gatewayv1.GatewayList:
		list.Items = inNamespace(s.Gateways, idx.gateways, options.Namespace)
	case *gatewayv1.ReferenceGrantList:
		list.Items = inNamespace(s.ReferenceGrants, idx.grants, options.Namespace)
	default:
		return fmt.Errorf("files are not read for %T", list)
	}
	return nil
}

// routesNaming copies the HTTPRoutes whose parentRefs name gw, or a ListenerSet that
// names gw: the only ones that may attach to it, found without listing every route of
// the set.
func (s *Set) routesNaming(gw *gatewayv1.Gateway) []*gatewayv1.HTTPRoute {
	positions := s.indexed().routesByParent[client.ObjectKeyFromObject(gw)]
	out := make([]*gatewayv1.HTTPRoute, len(positions))
	for i, at := range positions {
		out[i] = s.HTTPRoutes[at].DeepCopy()
	}
	return out
}

// object is a pointer to a typed Kubernetes object of type T.
type object[T any] interface {
	*T
	client.Object
	DeepCopyInto(*T)
}

func find[T any, P object[T]](items []T, idx kindIndex, key client.ObjectKey, into P, resource string) error {
	at, ok := idx.byKey[key]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: resource}, key.Name)
	}
	P(&items[at]).DeepCopyInto((*T)(into))
	return nil
}

// inNamespace copies the items of namespace, or all of them for "", and only those.
func inNamespace[T any, P object[T]](items []T, idx kindIndex, namespace string) []T {
	if namespace == "" {
		if len(items) == 0 {
			return nil
		}
		out := make([]T, len(items))
		for i := range items {
			P(&items[i]).DeepCopyInto(&out[i])
		}
		return out
	}
	positions := idx.byNamespace[namespace]
	if len(positions) == 0 {
		return nil
	}
	out := make([]T, len(positions))
	for i, at := range positions {
		P(&items[at]).DeepCopyInto(&out[i])
	}
	return out
}
