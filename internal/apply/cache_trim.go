package apply

import (
	"bytes"
	"unique"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// lastAppliedAnnotation is where kubectl apply keeps a copy of the whole object.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// TrimForCache drops from a cached object what Gatewright never reads and what often
// weighs as much as the rest (the managed fields, and kubectl's copy of the object), and
// makes the strings that many cached objects repeat share one copy: the label keys and
// values that every rendered object and Rendering of a Gateway carries, the names of
// owners, kinds and templates, the conditions of the fleet's statuses. Each decoded
// object has its own copy of each; a fleet of N Gateways holds some 6N objects.
// Interned strings are dropped by the garbage collector once no object holds them, so
// a tenant's distinct strings cost no more than they did.
//
// It also takes out the content of rendered objects (a ConfigMap's data, a Secret's,
// the spec of a large custom resource), which the cache keeps as a hash
// (StripContent): a blueprint's configuration is not held once per Gateway, and an
// object a tenant labels as Gatewright's costs its metadata, whatever it holds.
func TrimForCache(obj any) (any, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil // a tombstone of a deleted object: nothing cached to trim
	}
	m.SetManagedFields(nil)
	annotations := m.GetAnnotations()
	delete(annotations, lastAppliedAnnotation)
	m.SetAnnotations(internKeys(annotations))
	m.SetLabels(internMap(m.GetLabels()))
	m.SetNamespace(intern(m.GetNamespace()))
	if refs := m.GetOwnerReferences(); len(refs) > 0 {
		for i := range refs {
			refs[i].APIVersion, refs[i].Kind, refs[i].Name = intern(refs[i].APIVersion), intern(refs[i].Kind), intern(refs[i].Name)
		}
		m.SetOwnerReferences(refs)
	}
	if finalizers := m.GetFinalizers(); len(finalizers) > 0 {
		for i := range finalizers {
			finalizers[i] = intern(finalizers[i])
		}
		m.SetFinalizers(finalizers)
	}
	StripContent(obj)
	switch o := obj.(type) {
	case *gatewrightv1alpha1.GatewayConfig:
		boundBlocks(&o.Spec.DefaultsAndOverrides)
	case *gatewrightv1alpha1.GatewayClassConfig:
		boundBlocks(&o.Spec.DefaultsAndOverrides)
	case *gatewrightv1alpha1.Rendering:
		internRendering(o)
	case *gatewayv1.Gateway:
		internConditions(o.Status.Conditions)
		for i := range o.Status.Listeners {
			internConditions(o.Status.Listeners[i].Conditions)
		}
	case *gatewayv1.HTTPRoute:
		for i := range o.Status.Parents {
			internConditions(o.Status.Parents[i].Conditions)
		}
	}
	return obj, nil
}

// boundBlocks cuts a policy's block over values.MaxBytes to one byte more than the
// bound. Such a block is refused by its length before anything decodes it (the values
// engine measures every block first), with the same message whatever its length; the
// cache need not hold the rest, up to the API server's 1.5 MiB an object, once per
// policy a tenant creates.
func boundBlocks(blocks *gatewrightv1alpha1.DefaultsAndOverrides) {
	for _, block := range []*apiextensionsv1.JSON{blocks.Default, blocks.Override} {
		if block != nil && len(block.Raw) > values.MaxBytes {
			block.Raw = bytes.Clone(block.Raw[:values.MaxBytes+1])
		}
	}
}

func internRendering(r *gatewrightv1alpha1.Rendering) {
	r.Owner.Kind, r.Owner.Name = intern(r.Owner.Kind), intern(r.Owner.Name)
	r.Owner.GatewayNamespace, r.Owner.GatewayName = intern(r.Owner.GatewayNamespace), intern(r.Owner.GatewayName)
	for i := range r.Objects {
		o := &r.Objects[i]
		o.APIVersion, o.Kind, o.Namespace, o.Template = intern(o.APIVersion), intern(o.Kind), intern(o.Namespace), intern(o.Template)
	}
	v := r.Values
	if v == nil {
		return
	}
	v.GatewayClass, v.Blueprint = intern(v.GatewayClass), intern(v.Blueprint)
	for i := range v.Provenance {
		leaf := &v.Provenance[i]
		leaf.Path, leaf.Value = intern(leaf.Path), intern(leaf.Value)
		internOrigin(&leaf.RecordedOrigin)
		if leaf.DroppedBy != nil {
			internOrigin(leaf.DroppedBy)
		}
	}
	for i := range v.Policies {
		internSource(&v.Policies[i].Source)
	}
}

func internOrigin(o *gatewrightv1alpha1.RecordedOrigin) {
	internSource(&o.Source)
	o.Strategy, o.As = intern(o.Strategy), intern(o.As)
}

func internSource(s *gatewrightv1alpha1.PolicySource) {
	s.Kind, s.Namespace, s.Name = intern(s.Kind), intern(s.Namespace), intern(s.Name)
}

func internConditions(conditions []metav1.Condition) {
	for i := range conditions {
		c := &conditions[i]
		c.Type, c.Reason, c.Message = intern(c.Type), intern(c.Reason), intern(c.Message)
	}
}

// internMap interns the keys and values of m in place: assigning to a key that is there
// stores the new key's string too, and a new map would cost more than the strings.
func internMap(m map[string]string) map[string]string {
	for k, v := range m {
		m[intern(k)] = intern(v)
	}
	return m
}

// internKeys interns the keys of m in place; its values (hashes, documents) are rarely
// shared.
func internKeys(m map[string]string) map[string]string {
	for k, v := range m {
		m[intern(k)] = v
	}
	return m
}

func intern[S ~string](s S) S {
	if s == "" {
		return s
	}
	return S(unique.Make(string(s)).Value())
}
