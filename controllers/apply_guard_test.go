package controllers_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
)

// emptyCache is a cache that has seen nothing yet: every object is new to it, as the
// objects of a new Gateway are, or as an object is in the moment after it was created.
type emptyCache struct{ client.Client }

func (emptyCache) Get(_ context.Context, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	return apierrors.NewNotFound(schema.GroupResource{}, key.Name)
}

// The ownership guard against a real API server, for the objects the cache does not
// hold: they are created only where nothing of their name exists.
var _ = Describe("Applying objects the cache does not hold", func() {
	var (
		namespace string
		owner     apply.Owner
		applier   *apply.Applier
	)
	BeforeEach(func(ctx SpecContext) {
		namespace = newWorld(ctx).namespace
		gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace, UID: "00000000-0000-0000-0000-0000000000aa"}}
		owner = apply.GatewayOwner(gw)
		applier = apply.New(emptyCache{k8s}, k8s)
	})
	configMap := func(name string, data map[string]any) *unstructured.Unstructured {
		labels := map[string]any{gatewrightv1alpha1.LabelManagedBy: gatewrightv1alpha1.ManagedByValue}
		for k, v := range owner.Labels {
			labels[k] = v
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "namespace": namespace, "labels": labels},
			"data":     data,
		}}
	}

	It("creates a new object with a server-side apply, so that a field it stops rendering is removed", func(ctx SpecContext) {
		result, err := applier.Apply(ctx, owner, []*unstructured.Unstructured{configMap("web-config", map[string]any{"a": "1", "b": "2"})}, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(result.Changed).To(ConsistOf("ConfigMap/" + namespace + "/web-config created"))
		cm := &corev1.ConfigMap{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "web-config"}, cm)).To(Succeed())
		Expect(cm.ManagedFields).To(ConsistOf(HaveField("Operation", metav1.ManagedFieldsOperationApply)))

		_, err = applier.Apply(ctx, owner, []*unstructured.Unstructured{configMap("web-config", map[string]any{"a": "1"})}, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "web-config"}, cm)).To(Succeed())
		Expect(cm.Data).To(Equal(map[string]string{"a": "1"}))
	})

	It("applies an object of its own that the cache has not seen yet", func(ctx SpecContext) {
		_, err := applier.Apply(ctx, owner, []*unstructured.Unstructured{configMap("web-config", map[string]any{"a": "1"})}, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		result, err := applier.Apply(ctx, owner, []*unstructured.Unstructured{configMap("web-config", map[string]any{"a": "2"})}, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(result.Changed).To(ConsistOf("ConfigMap/" + namespace + "/web-config configured"))
	})

	It("refuses someone else's object, and changes none that existed", func(ctx SpecContext) {
		Expect(k8s.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "web-config", Namespace: namespace},
			Data:       map[string]string{"greeting": "someone else's"},
		})).To(Succeed())
		_, err := applier.Apply(ctx, owner, []*unstructured.Unstructured{configMap("web-routes", map[string]any{"a": "1"})}, nil, nil)
		Expect(err).NotTo(HaveOccurred())

		_, err = applier.Apply(ctx, owner, []*unstructured.Unstructured{
			configMap("web-config", map[string]any{"greeting": "hello"}),
			configMap("web-routes", map[string]any{"a": "2"}),
		}, nil, nil)
		var conflict *apply.ConflictError
		Expect(errors.As(err, &conflict)).To(BeTrue(), "%v", err)
		cm := &corev1.ConfigMap{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "web-config"}, cm)).To(Succeed())
		Expect(cm.Data).To(Equal(map[string]string{"greeting": "someone else's"}))
		Expect(cm.Labels).To(BeEmpty())
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "web-routes"}, cm)).To(Succeed())
		Expect(cm.Data).To(Equal(map[string]string{"a": "1"}), "an object that existed was changed in a round that found a conflict")
	})
})
