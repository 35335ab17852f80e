package apply

import (
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// fresh returns a copy of s in storage of its own, as a decoder gives each object.
func fresh(s string) string { return strings.Clone(s) }

func renderedConfigMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: fresh("tenant-0"), Name: name,
		Labels:          map[string]string{fresh(gatewrightv1alpha1.LabelManagedBy): fresh(gatewrightv1alpha1.ManagedByValue)},
		Annotations:     map[string]string{fresh(lastAppliedAnnotation): "{}", fresh("gatewright.dev/rendered-hash"): fresh(name)},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: fresh("gateway.networking.k8s.io/v1"), Kind: fresh("Gateway"), Name: fresh("gw-0"), UID: "u"}},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "gatewright"}},
	}}
}

func TestTrimForCacheDropsBookkeepingAndSharesRepeatedStrings(t *testing.T) {
	a, b := renderedConfigMap("a"), renderedConfigMap("b")
	want := a.DeepCopy()
	want.ManagedFields = nil
	delete(want.Annotations, lastAppliedAnnotation)
	for _, cm := range []*corev1.ConfigMap{a, b} {
		if _, err := TrimForCache(cm); err != nil {
			t.Fatal(err)
		}
	}
	if !equality.Semantic.DeepEqual(a, want) {
		t.Fatalf("trimmed to %+v, want %+v", a.ObjectMeta, want.ObjectMeta)
	}
	same := func(what, x, y string) {
		if unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("the two objects hold two copies of %s %q", what, x)
		}
	}
	same("the namespace", a.Namespace, b.Namespace)
	same("the label value", a.Labels[gatewrightv1alpha1.LabelManagedBy], b.Labels[gatewrightv1alpha1.LabelManagedBy])
	for ka := range a.Labels {
		for kb := range b.Labels {
			same("the label key", ka, kb)
		}
	}
	same("the owner's name", a.OwnerReferences[0].Name, b.OwnerReferences[0].Name)
	same("the owner's kind", a.OwnerReferences[0].Kind, b.OwnerReferences[0].Kind)
}

func TestTrimForCacheKeepsARenderingAsItWas(t *testing.T) {
	r := &gatewrightv1alpha1.Rendering{
		ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-0", Name: "gateway.gw-0", Finalizers: []string{gatewrightv1alpha1.FinalizerCleanup}},
		Owner:      gatewrightv1alpha1.RenderingOwner{Kind: "Gateway", Name: "gw-0", GatewayNamespace: "tenant-0", GatewayName: "gw-0"},
		Objects:    []gatewrightv1alpha1.RenderedObject{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "tenant-0", Name: "gw-0-a", Template: "a", Hash: "h", Ready: true}},
		Values: &gatewrightv1alpha1.RecordedValues{
			GatewayClass: "bench", Blueprint: "bench",
			Provenance: []gatewrightv1alpha1.RecordedLeaf{{Path: "image", Value: `"envoy"`, RecordedOrigin: gatewrightv1alpha1.RecordedOrigin{
				Source: gatewrightv1alpha1.PolicySource{Kind: "GatewayClassBlueprint", Name: "bench"}, Strategy: "Patch", As: "default",
			}}},
			Policies: []gatewrightv1alpha1.RecordedPolicy{{Source: gatewrightv1alpha1.PolicySource{Kind: "GatewayConfig", Namespace: "tenant-0", Name: "team"}, State: "Enforced"}},
		},
		Revision: 3, ValuesHash: "abc",
	}
	want := r.DeepCopy()
	if _, err := TrimForCache(r); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(r, want) {
		t.Fatalf("trimmed to %+v, want %+v", r, want)
	}
}

// A policy's block over the bound is held only up to the bound, and refused as the
// whole block is.
func TestTrimForCacheHoldsAPolicyBlockOnlyUpToTheBound(t *testing.T) {
	large := []byte(`{"blob":"` + strings.Repeat("x", 1<<20) + `"}`)
	small := []byte(`{"a":1}`)
	policy := &gatewrightv1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-0", Name: "big"}}
	policy.Spec.Default = &apiextensionsv1.JSON{Raw: large}
	policy.Spec.Override = &apiextensionsv1.JSON{Raw: small}
	source := values.Source{Kind: gatewrightv1alpha1.KindGatewayConfig, Namespace: "tenant-0", Name: "big"}
	whole := values.CheckPolicy(source, policy.Spec.DefaultsAndOverrides.DeepCopy())
	if whole == nil {
		t.Fatal("the policy is within the bounds: the test proves nothing")
	}
	if _, err := TrimForCache(policy); err != nil {
		t.Fatal(err)
	}
	if got := len(policy.Spec.Default.Raw); got != values.MaxBytes+1 {
		t.Errorf("the cache holds %d bytes of the default, want %d", got, values.MaxBytes+1)
	}
	if string(policy.Spec.Override.Raw) != string(small) {
		t.Errorf("a block within the bound was changed: %s", policy.Spec.Override.Raw)
	}
	if cut := values.CheckPolicy(source, &policy.Spec.DefaultsAndOverrides); cut == nil || cut.Error() != whole.Error() {
		t.Errorf("the held policy is judged %v, the whole one %v", cut, whole)
	}
}
