package controllers_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// portCapped is configBlueprint, rolled out all at once (or paused), with a
// valuesSchema that caps the port.
func portCapped(maximum int, paused bool) string {
	return configBlueprint + fmt.Sprintf(`
rollout: {strategy: AllAtOnce, paused: %t}
valuesSchema:
  type: object
  properties:
    port: {type: integer, maximum: %d}
`, paused, maximum)
}

var _ = Describe("Policy status with blueprint revisions", func() {
	It("judges each Gateway with the blueprint revision it runs, not the blueprint's newest spec", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, portCapped(99999, false))
		Eventually(w.blueprintStatus(ctx)).Should(HaveField("CurrentRevision", int64(1)))
		w.gateway(ctx, "web")
		w.gateway(ctx, "api")
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: port, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  default: {port: 80000}
`)
		port := &gatewrightv1alpha1.GatewayConfig{}
		port.Namespace, port.Name = w.namespace, "port"
		Eventually(ancestors(ctx, port)).Should(ContainElement(
			"Namespace/" + w.namespace + " Enforced=True/Enforced: in effect on every Gateway and route it reaches"))

		// Revision 2 refuses the port; paused, it reaches no Gateway, and the port stays in effect.
		w.classAndBlueprint(ctx, portCapped(9999, true))
		Eventually(w.blueprintStatus(ctx)).Should(And(HaveField("TargetRevision", int64(2)), HaveField("CurrentRevision", int64(1))))
		Consistently(ancestors(ctx, port), "2s").Should(ContainElement(
			"Namespace/" + w.namespace + " Enforced=True/Enforced: in effect on every Gateway and route it reaches"))
		// web is assigned revision 2; api stays on 1.
		w.assignRevision(ctx, "web", 2)
		Eventually(ancestors(ctx, port)).Should(ContainElement(
			"Namespace/" + w.namespace + " Enforced=False/Invalid: refused by the blueprint's valuesSchema: port: should be less than or equal to 9999, got 80000 (Gateway " + w.namespace + "/web)"))
	})
})
