package api

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
)

var _ = Describe("How the CRDs present themselves to kubectl", func() {
	DescribeTable("CRD metadata",
		func(ctx SpecContext, name string, scope apiextensionsv1.ResourceScope, shortName string, policyLabel string) {
			var crd apiextensionsv1.CustomResourceDefinition
			Expect(k8s.Get(ctx, types.NamespacedName{Name: name}, &crd)).To(Succeed())
			Expect(crd.Spec.Scope).To(Equal(scope))
			Expect(crd.Spec.Names.ShortNames).To(ConsistOf(shortName))
			Expect(crd.Spec.Names.Categories).To(ConsistOf("gatewright"))
			if policyLabel == "" {
				Expect(crd.Labels).NotTo(HaveKey("gateway.networking.k8s.io/policy"))
			} else {
				Expect(crd.Labels).To(HaveKeyWithValue("gateway.networking.k8s.io/policy", policyLabel))
			}
		},
		Entry("GatewayClassBlueprint", "gatewayclassblueprints.gatewright.dev", apiextensionsv1.ClusterScoped, "gcb", ""),
		Entry("GatewayClassBlueprintRevision", "gatewayclassblueprintrevisions.gatewright.dev", apiextensionsv1.ClusterScoped, "gcbr", ""),
		Entry("GatewayClassConfig", "gatewayclassconfigs.gatewright.dev", apiextensionsv1.NamespaceScoped, "gcc", "Inherited"),
		Entry("GatewayConfig", "gatewayconfigs.gatewright.dev", apiextensionsv1.NamespaceScoped, "gwc", "Inherited"),
	)

	It("serves every kind under the gatewright category, so `kubectl get gatewright` lists them", func() {
		dc, err := discovery.NewDiscoveryClientForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		resources, err := dc.ServerResourcesForGroupVersion("gatewright.dev/v1alpha1")
		Expect(err).NotTo(HaveOccurred())
		inCategory := map[string][]string{}
		for _, r := range resources.APIResources {
			for _, c := range r.Categories {
				if c == "gatewright" {
					inCategory[r.Name] = r.ShortNames
				}
			}
		}
		Expect(inCategory).To(Equal(map[string][]string{
			"gatewayclassblueprints":         {"gcb"},
			"gatewayclassblueprintrevisions": {"gcbr"},
			"gatewayclassconfigs":            {"gcc"},
			"gatewayconfigs":                 {"gwc"},
			"renderings":                     nil,
		}))
	})

	It("prints the first target of a config in `kubectl get gcc`", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		Expect(k8s.Create(ctx, objectIn(ns, gatewayClassConfigYAML))).To(Succeed())

		clientset, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		raw, err := clientset.RESTClient().Get().
			AbsPath("/apis/gatewright.dev/v1alpha1/namespaces", ns, "gatewayclassconfigs").
			SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").
			DoRaw(ctx)
		Expect(err).NotTo(HaveOccurred())
		var table metav1.Table
		Expect(json.Unmarshal(raw, &table)).To(Succeed())

		var columns []string
		for _, c := range table.ColumnDefinitions {
			columns = append(columns, c.Name)
		}
		Expect(columns).To(Equal([]string{"Name", "Target Kind", "Target", "Accepted", "Programmed", "Enforced (deprecated)", "Age"}))
		Expect(table.Rows).To(HaveLen(1))
		Expect(table.Rows[0].Cells[1:3]).To(Equal([]any{"GatewayClass", "internet"}))
	})
})
