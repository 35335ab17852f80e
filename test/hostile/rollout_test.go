package hostile

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// wavesBlueprint writes greeting into a ConfigMap per Gateway, rolled out by rollout.
func wavesBlueprint(greeting, rollout string) string {
	return fmt.Sprintf(`
rollout: %s
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {greeting: %s}
`, rollout, greeting)
}

// rolloutOf reads a blueprint's status.rollout.
func rolloutOf(ctx context.Context, blueprint string) func() *gatewrightv1alpha1.BlueprintRolloutStatus {
	return func() *gatewrightv1alpha1.BlueprintRolloutStatus {
		bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: blueprint}, bp)).To(Succeed())
		return bp.Status.Rollout
	}
}

// greetingsIn counts the Gateways of names in namespace by their ConfigMap's greeting.
func greetingsIn(ctx context.Context, namespace string, names []string) func() map[string]int {
	return func() map[string]int {
		out := map[string]int{}
		for _, name := range names {
			cm := &corev1.ConfigMap{}
			if err := admin.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name + "-config"}, cm); err != nil {
				out["none"]++
				continue
			}
			out[cm.Data["greeting"]]++
		}
		return out
	}
}

var _ = Describe("A blueprint's rollout under the controller's own rights", func() {
	It("resumes the same wave and gate after the controller is killed mid-wave", func(ctx SpecContext) {
		const soak = 30 * time.Second
		rollout := fmt.Sprintf("{soakSeconds: %d, gateDeadlineSeconds: 300}", int(soak.Seconds()))
		class := newClass(ctx, wavesBlueprint("one", rollout))
		alice := newTenant(ctx, "alice", "team-a")
		var names []string
		for i := range 10 {
			names = append(names, fmt.Sprintf("gw-%02d", i))
			alice.gateway(ctx, class, names[i])
		}
		greetings := greetingsIn(ctx, alice.namespace, names)
		Eventually(greetings).WithTimeout(60 * time.Second).Should(Equal(map[string]int{"one": 10}))
		Eventually(rolloutOf(ctx, class)).Should(HaveField("Revision", int64(1)))

		setBlueprint(ctx, class, wavesBlueprint("two", rollout))
		// The 50% wave (the 10% one adds no Gateway to the first), its Gateways healthy
		// for a third of the soak when the controller dies.
		Eventually(rolloutOf(ctx, class)).WithTimeout(2 * soak).Should(And(HaveField("Revision", int64(2)), HaveField("Wave", int32(2))))
		Eventually(greetings).Should(Equal(map[string]int{"one": 5, "two": 5}))
		for _, name := range names[:5] {
			alice.programmed(ctx, name)
		}
		time.Sleep(soak / 3)
		gatewright.kill()
		killed := rolloutOf(ctx, class)()
		restarted := time.Now()
		gatewright = startController(nil)

		// The new instance keeps the wave's start and the soak its Gateways record: it
		// neither starts the wave again, nor lets it pass before its soak, nor starts the
		// soak again (which could not end before restarted + soak).
		for {
			// The greetings first: the status says the next wave before any Gateway gets it,
			// so greetings read before a status that still says wave 2 are that wave's.
			seen := greetings()
			st := rolloutOf(ctx, class)()
			if st.Wave != 2 {
				passed := time.Now()
				Expect(passed).To(BeTemporally(">=", killed.WaveStarted.Add(soak)), "the wave passed before its soak")
				Expect(passed).To(BeTemporally("<", restarted.Add(soak-2*time.Second)), "the soak started again with the new instance")
				break
			}
			Expect(st.WaveStarted.Time).To(BeTemporally("==", killed.WaveStarted.Time), "the wave started again")
			Expect(seen).To(Equal(map[string]int{"one": 5, "two": 5}))
			time.Sleep(100 * time.Millisecond)
		}
		// The last wave, whose soak would add nothing to the story.
		Eventually(greetings).WithTimeout(soak).Should(Equal(map[string]int{"two": 10}))
	})

	It("is neither held nor rolled back by a tenant's Gateway that was broken before its wave, and tenants cannot assign revisions", func(ctx SpecContext) {
		const rollout = `{waves: ["1", "100%"], soakSeconds: 1, gateDeadlineSeconds: 20}`
		class := newClass(ctx, wavesBlueprint("one", rollout))
		alice := newTenant(ctx, "alice", "team-a")
		// First in order, with a listener whose certificate does not exist.
		alice.apply(ctx, class, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: a-broken, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - name: https
    protocol: HTTPS
    port: 443
    tls: {certificateRefs: [{name: missing}]}
`)
		alice.gateway(ctx, class, "b-web")
		names := []string{"a-broken", "b-web"}
		greetings := greetingsIn(ctx, alice.namespace, names)
		Eventually(greetings).WithTimeout(30 * time.Second).Should(Equal(map[string]int{"one": 2}))
		Eventually(alice.condition(ctx, "a-broken", "Programmed")).Should(HavePrefix("True/"))
		Eventually(rolloutOf(ctx, class)).Should(HaveField("Revision", int64(1)))

		rendering := &gatewrightv1alpha1.Rendering{}
		Expect(alice.Get(ctx, types.NamespacedName{Namespace: alice.namespace, Name: "gateway.b-web"}, rendering)).To(Succeed())
		rendering.TargetRevision = 7
		Expect(alice.Update(ctx, rendering)).To(beForbidden())

		setBlueprint(ctx, class, wavesBlueprint("two", rollout))
		Eventually(greetings).WithTimeout(30 * time.Second).Should(Equal(map[string]int{"two": 2}))
		Eventually(rolloutOf(ctx, class)).WithTimeout(30 * time.Second).Should(And(HaveField("Phase", gatewrightv1alpha1.RolloutComplete), HaveField("Failure", BeNil())))
		Expect(alice.Get(ctx, types.NamespacedName{Namespace: alice.namespace, Name: "gateway.a-broken"}, rendering)).To(Succeed())
		Expect(rendering.GatesRollout).To(BeFalse(), "a Gateway broken before its wave gated it")
	})
})
