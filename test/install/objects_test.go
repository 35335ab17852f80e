package install

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/manifest"
)

// objects are the objects of one install, as rendered.
type objects []*unstructured.Unstructured

func decodeObjects(data []byte) objects {
	objs, err := manifest.Decode(data)
	Expect(err).NotTo(HaveOccurred())
	return objs
}

func key(obj *unstructured.Unstructured) string {
	return obj.GetKind() + "/" + obj.GetName()
}

// get returns the object of that kind and name, failing the spec if there is none.
func (o objects) get(kind, name string) *unstructured.Unstructured {
	for _, obj := range o {
		if obj.GetKind() == kind && obj.GetName() == name {
			return obj
		}
	}
	Expect(o.keys()).To(ContainElement(kind+"/"+name), "the install has no %s %s", kind, name)
	return nil
}

func (o objects) keys() []string {
	keys := make([]string, 0, len(o))
	for _, obj := range o {
		keys = append(keys, key(obj))
	}
	slices.Sort(keys)
	return keys
}

func (o objects) kinds() []string {
	var kinds []string
	for _, obj := range o {
		kinds = append(kinds, obj.GetKind())
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}

// changes lists, by kind/name, the objects that o adds to base, removes from it, and
// changes in it.
func (o objects) changes(base objects) (added, removed, changed []string) {
	before := map[string]*unstructured.Unstructured{}
	for _, obj := range base {
		before[key(obj)] = obj
	}
	for _, obj := range o {
		old, found := before[key(obj)]
		switch {
		case !found:
			added = append(added, key(obj))
		case !reflect.DeepEqual(old.Object, obj.Object):
			changed = append(changed, key(obj))
		}
		delete(before, key(obj))
	}
	for k := range before {
		removed = append(removed, k)
	}
	slices.Sort(added)
	slices.Sort(removed)
	slices.Sort(changed)
	return added, removed, changed
}

// as converts obj to its typed form.
func as[T any](obj *unstructured.Unstructured) *T {
	typed := new(T)
	Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, typed)).To(Succeed())
	return typed
}

// grants expands RBAC rules into "group/resource verb" entries, so that rules written
// differently but granting the same compare equal.
func grants(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, rule := range rules {
		for _, group := range rule.APIGroups {
			for _, resource := range rule.Resources {
				for _, verb := range rule.Verbs {
					out = append(out, fmt.Sprintf("%s/%s %s", group, resource, verb))
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func clusterRoleGrants(o objects, name string) []string {
	return grants(as[rbacv1.ClusterRole](o.get("ClusterRole", name)).Rules)
}

// dryRunCreate asks the API server to create obj, as `helm install` does, without keeping it.
func dryRunCreate(ctx context.Context, obj *unstructured.Unstructured) error {
	return k8s.Create(ctx, obj.DeepCopy(), client.DryRunAll)
}

// dryRunApply asks the API server to apply obj, as `kubectl apply --server-side` does,
// without keeping it.
func dryRunApply(ctx context.Context, obj *unstructured.Unstructured) error {
	return k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()),
		client.DryRunAll, client.FieldOwner("gatewright-install-test"), client.ForceOwnership)
}

// podOf is a pod the Deployment deploy would create, in namespace.
func podOf(deploy *unstructured.Unstructured, namespace string) *corev1.Pod {
	template := as[corev1.PodTemplateSpec](nestedMap(deploy, "spec", "template"))
	pod := &corev1.Pod{ObjectMeta: template.ObjectMeta, Spec: template.Spec}
	pod.GenerateName = deploy.GetName() + "-"
	pod.Namespace = namespace
	return pod
}

// nestedMap returns the object at path in obj, failing the spec if there is none.
func nestedMap(obj *unstructured.Unstructured, path ...string) *unstructured.Unstructured {
	m, found, err := unstructured.NestedMap(obj.Object, path...)
	Expect(err).NotTo(HaveOccurred())
	Expect(found).To(BeTrue(), "%s has no %v", key(obj), path)
	return &unstructured.Unstructured{Object: m}
}
