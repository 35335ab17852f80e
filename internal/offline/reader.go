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
	switch obj := obj.(type) {
	case *gatewrightv1alpha1.GatewayClassBlueprint:
		return find(s.Blueprints, key, obj, "gatewayclassblueprints")
	case *gatewayv1.GatewayClass:
		return find(s.GatewayClasses, key, obj, "gatewayclasses")
	case *gatewayv1.Gateway:
		return find(s.Gateways, key, obj, "gateways")
	case *gatewayv1.HTTPRoute:
		return find(s.HTTPRoutes, key, obj, "httproutes")
	case *corev1.Service:
		return find(s.Services, key, obj, "services")
	case *corev1.Namespace:
		if err := find(s.Namespaces, key, obj, "namespaces"); err != nil {
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
	switch list := list.(type) {
	case *gatewrightv1alpha1.GatewayClassConfigList:
		list.Items = inNamespace(s.GatewayClassConfigs, options.Namespace)
	case *gatewrightv1alpha1.GatewayConfigList:
		list.Items = inNamespace(s.GatewayConfigs, options.Namespace)
	case *gatewayv1.HTTPRouteList:
		list.Items = inNamespace(s.HTTPRoutes, options.Namespace)
	case *gatewayv1.GatewayList:
		list.Items = inNamespace(s.Gateways, options.Namespace)
	case *gatewayv1.ReferenceGrantList:
		list.Items = inNamespace(s.ReferenceGrants, options.Namespace)
	default:
		return fmt.Errorf("files are not read for %T", list)
	}
	return nil
}

// object is a pointer to a typed Kubernetes object of type T.
type object[T any] interface {
	*T
	client.Object
	DeepCopyInto(*T)
}

func find[T any, P object[T]](items []T, key client.ObjectKey, into P, resource string) error {
	for i := range items {
		if item := P(&items[i]); item.GetNamespace() == key.Namespace && item.GetName() == key.Name {
			item.DeepCopyInto((*T)(into))
			return nil
		}
	}
	return apierrors.NewNotFound(schema.GroupResource{Resource: resource}, key.Name)
}

func inNamespace[T any, P object[T]](items []T, namespace string) []T {
	var out []T
	for i := range items {
		if namespace == "" || P(&items[i]).GetNamespace() == namespace {
			var copied T
			P(&items[i]).DeepCopyInto(&copied)
			out = append(out, copied)
		}
	}
	return out
}
