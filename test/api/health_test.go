package api

import (
	kstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A new object has no status until the controller writes one, and kstatus (Flux's
// health checks, Argo CD's for kinds it does not know) reads an object without status or
// conditions as Current: the CRDs default the status to an observedGeneration of 0, so
// that it reads as not yet observed instead.
var _ = Describe("A new object's health, before the controller writes its status", func() {
	for _, manifest := range []string{
		"apiVersion: gatewright.dev/v1alpha1\nkind: GatewayConfig\nmetadata: {generateName: gwc-}\nspec: {}\n",
		"apiVersion: gatewright.dev/v1alpha1\nkind: GatewayClassConfig\nmetadata: {generateName: gcc-}\nspec: {targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: edge}]}\n",
		blueprintYAML,
	} {
		obj := object(manifest)
		It("reads InProgress in kstatus for a "+obj.GetKind(), func(ctx SpecContext) {
			if obj.GetKind() != "GatewayClassBlueprint" {
				obj.SetNamespace(newNamespace(ctx))
			}
			Expect(k8s.Create(ctx, obj)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(k8s.Delete(ctx, obj))).To(Succeed()) })
			read := &unstructured.Unstructured{}
			read.SetGroupVersionKind(obj.GroupVersionKind())
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), read)).To(Succeed())
			Expect(read.Object["status"]).To(HaveKeyWithValue("observedGeneration", BeNumerically("==", 0)))
			res, err := kstatus.Compute(read)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Status).To(Equal(kstatus.InProgressStatus), res.Message)
		})
	}
})
