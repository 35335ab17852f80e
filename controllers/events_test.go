package controllers_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// blueprintEvents counts the events on the world's blueprint by reason, as kubectl
// describe shows them (an event repeated counts once per occurrence).
func (w world) blueprintEvents(ctx context.Context) func() map[string]int {
	return func() map[string]int {
		var events corev1.EventList
		Expect(k8s.List(ctx, &events, client.MatchingFields{"involvedObject.name": w.blueprint})).To(Succeed())
		out := map[string]int{}
		for _, e := range events.Items {
			out[e.Reason] += int(max(e.Count, 1))
		}
		return out
	}
}

var _ = Describe("Events about a provider's objects", func() {
	// Issue 40, finding 4: client-go lets a source send 25 events of one type about one
	// object; 28 flips of one tenant's values used up the blueprint's, and the
	// provider's RolloutRolledBack never appeared.
	It("are not crowded out by the events a tenant causes", func(ctx SpecContext) {
		w := newWorld(ctx)
		// A tenant's mode: bad fails the render, which the blueprint's Rendered
		// condition, and an event on the blueprint, report.
		greeting := `{{ if eq (.Values.mode | default "good") "bad" }}{{ fail "the tenant asked for bad" }}{{ end }}one`
		w.classAndBlueprint(ctx, proxyBlueprint(greeting, false, fastRollout))
		w.gateway(ctx, gatewayName(0))
		Eventually(w.greetings1(ctx)).Should(Equal("one"))
		Eventually(w.blueprintStatus(ctx)).Should(HaveField("CurrentRevision", int64(1)))

		rendered := func() string {
			c := meta.FindStatusCondition(w.blueprintStatus(ctx)().Conditions, gatewrightv1alpha1.ConditionRendered)
			if c == nil {
				return ""
			}
			return c.Reason
		}
		for flip := range 30 {
			for _, mode := range []string{"bad", "good"} {
				w.apply(ctx, fmt.Sprintf(`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: flipper, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  default: {mode: %s}
`, mode))
				want := gatewrightv1alpha1.ReasonRendered
				if mode == "bad" {
					want = gatewrightv1alpha1.ReasonRenderFailed
				}
				Eventually(rendered).Should(Equal(want), "flip %d to %s", flip, mode)
			}
		}
		Eventually(w.blueprintEvents(ctx)).Should(HaveKeyWithValue(gatewrightv1alpha1.ReasonRenderFailed, BeNumerically(">=", 25)),
			"the tenant's flips did not use up the budget client-go gives RenderFailed")

		// A change whose Deployment never becomes available: rolled back. Its Gateway's
		// tenant inputs are recorded to the second, and a tenant edit as late as the
		// revision excuses its Gateway from the gate (docs/rollout.md): let the last flip age.
		time.Sleep(2 * time.Second)
		w.classAndBlueprint(ctx, proxyBlueprint(greeting, true, fastRollout))
		Eventually(w.rolloutStatus(ctx), "40s").Should(HaveField("Phase", gatewrightv1alpha1.RolloutRolledBack))
		Eventually(w.blueprintEvents(ctx)).Should(HaveKey("RolloutRolledBack"), "the provider's rollback event was crowded out")
	})
})

// greetings1 is the greeting of the first Gateway's ConfigMap.
func (w world) greetings1(ctx context.Context) func() string {
	return func() string {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: gatewayName(0) + "-config"}, cm); err != nil {
			return err.Error()
		}
		return cm.Data["greeting"]
	}
}
