package controllers_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

var _ = Describe("A Namespace targeted by policies", func() {
	It("names them in its ...Affected conditions, and loses a condition with its last policy", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: team-defaults, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  default: {replicas: 2}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: team-limits, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  override: {replicas: 3}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: for-a-gateway, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {replicas: 4}
`)
		Eventually(namespaceConditions(ctx, w.namespace)).Should(Equal(map[string]string{
			gatewrightv1alpha1.ConditionGatewayClassConfigAffected: "True/Affected: targeted by GatewayClassConfig " + w.namespace + "/team-limits",
			gatewrightv1alpha1.ConditionGatewayConfigAffected:      "True/Affected: targeted by GatewayConfig " + w.namespace + "/team-defaults",
		}))

		Expect(k8s.Delete(ctx, &gatewrightv1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: "team-defaults"}})).To(Succeed())
		Eventually(namespaceConditions(ctx, w.namespace)).Should(Equal(map[string]string{
			gatewrightv1alpha1.ConditionGatewayClassConfigAffected: "True/Affected: targeted by GatewayClassConfig " + w.namespace + "/team-limits",
		}))
	})
})

// namespaceConditions returns a Namespace's conditions as "Status/Reason: message" by type.
func namespaceConditions(ctx context.Context, name string) func() (map[string]string, error) {
	return func() (map[string]string, error) {
		ns := &corev1.Namespace{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
			return nil, err
		}
		out := map[string]string{}
		for _, c := range ns.Status.Conditions {
			out[string(c.Type)] = string(c.Status) + "/" + c.Reason + ": " + c.Message
		}
		return out, nil
	}
}
