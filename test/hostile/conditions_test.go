package hostile

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("A tenant's costly conditions", func() {
	// Issue 40, finding 2: six conditions of about 500 CEL units each over a 480 KB string,
	// on 40 of one tenant's Gateways, held the status of the provider's class-wide
	// GatewayClassConfig back 50-95 s after its change.
	It("do not hold up the status of the provider's class-wide policy", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")

		blob := strings.Repeat("x", 480_000)
		manifest := `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: blob, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  default: {blob: "` + blob + `"}
`
		for i := range 6 {
			// About 500 units each where size() of a string cost 1.
			manifest += fmt.Sprintf(`---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: costly-%d, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  override:
    values: {costly%d: true}
    when: "[%s].all(i, self.blob.size() > i)"
`, i, i, strings.Trim(strings.Repeat("0, ", 100), ", "))
		}
		alice.apply(ctx, class, manifest)
		gateways := make([]string, 40)
		for i := range gateways {
			gateways[i] = fmt.Sprintf("gw-%02d", i)
			alice.gateway(ctx, class, gateways[i])
			// Values that differ from Gateway to Gateway: nothing computed for one serves another.
			alice.configure(ctx, "Gateway", gateways[i], map[string]any{"gateway": gateways[i]})
		}

		provider := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "gatewright.dev/v1alpha1",
			"kind":       "GatewayClassConfig",
			"metadata":   map[string]any{"name": class, "namespace": controllerNamespace},
			"spec": map[string]any{
				"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "GatewayClass", "name": class}},
				"default":    map[string]any{"greeting": "hello from the provider"},
			},
		}}
		Expect(admin.Create(ctx, provider)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(admin.Delete(ctx, provider))).To(Succeed()) })
		judged := func(generation int64) func() (int64, error) {
			return func() (int64, error) {
				got := &unstructured.Unstructured{}
				got.SetGroupVersionKind(provider.GroupVersionKind())
				if err := admin.Get(ctx, client.ObjectKeyFromObject(provider), got); err != nil {
					return 0, err
				}
				ancestors, _, _ := unstructured.NestedSlice(got.Object, "status", "ancestors")
				for _, a := range ancestors {
					conditions, _, _ := unstructured.NestedSlice(a.(map[string]any), "conditions")
					for _, c := range conditions {
						c := c.(map[string]any)
						if c["type"] == "Enforced" {
							observed, _, _ := unstructured.NestedInt64(c, "observedGeneration")
							return observed, nil
						}
					}
				}
				return 0, nil
			}
		}
		// Every Gateway is in place and reached by the policy before it changes.
		for _, name := range gateways {
			Eventually(alice.condition(ctx, name, "Accepted")).WithTimeout(time.Minute).Should(HavePrefix("True/"))
		}
		Eventually(judged(1)).WithTimeout(time.Minute).Should(BeEquivalentTo(1))

		patch := client.RawPatch(types.MergePatchType, []byte(`{"spec": {"default": {"greeting": "hello again"}}}`))
		Expect(admin.Patch(ctx, provider, patch)).To(Succeed())
		changed := time.Now()
		Eventually(judged(provider.GetGeneration())).WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).
			Should(Equal(provider.GetGeneration()), "the provider's status was not written within 30 s of its change")
		GinkgoWriter.Printf("the provider's status was written %v after its change\n", time.Since(changed))
	})
})
