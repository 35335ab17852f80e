package controllers_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// fleetSize is the number of Gateways of the class in the rollout specs.
const fleetSize = 10

// fastRollout is the default waves with a soak and a deadline short enough for a test.
const fastRollout = "{soakSeconds: 2, gateDeadlineSeconds: 12}"

// proxyBlueprint renders a ConfigMap per Gateway with greeting and, with proxy, a
// Deployment, which never becomes available on an API server without a kube-controller-
// manager: a change whose objects never become ready.
func proxyBlueprint(greeting string, proxy bool, rollout string) string {
	deployment := ""
	if proxy {
		deployment = `
  - name: proxy
    template: |
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: {{ .Gateway.metadata.name }}-proxy}
      spec:
        selector: {matchLabels: {app: proxy}}
        template:
          metadata: {labels: {app: proxy}}
          spec: {containers: [{name: proxy, image: envoyproxy/envoy}]}`
	}
	return fmt.Sprintf(`
rollout: %s
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {greeting: %s}%s
`, rollout, greeting, deployment)
}

func gatewayName(i int) string { return fmt.Sprintf("gw-%02d", i) }

// greetings counts the fleet's Gateways by the greeting their ConfigMap has.
func (w world) greetings(ctx context.Context) func() map[string]int {
	return func() map[string]int {
		out := map[string]int{}
		for i := range fleetSize {
			cm := &corev1.ConfigMap{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: gatewayName(i) + "-config"}, cm); err != nil {
				out["none"]++
				continue
			}
			out[cm.Data["greeting"]]++
		}
		return out
	}
}

// rolloutStatus returns the blueprint's status.rollout, nil when it has none.
func (w world) rolloutStatus(ctx context.Context) func() *gatewrightv1alpha1.BlueprintRolloutStatus {
	return func() *gatewrightv1alpha1.BlueprintRolloutStatus { return w.blueprintStatus(ctx)().Rollout }
}

// annotateBlueprint sets an annotation on the world's blueprint, as gatewright rollout does.
func (w world) annotateBlueprint(ctx context.Context, key, value string) {
	Eventually(func() error {
		bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: w.blueprint}, bp); err != nil {
			return err
		}
		if bp.Annotations == nil {
			bp.Annotations = map[string]string{}
		}
		bp.Annotations[key] = value
		return k8s.Update(ctx, bp)
	}).Should(Succeed())
}

var _ = Describe("A blueprint's rollout", func() {
	var w world
	setUp := func(ctx context.Context, rollout string) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, proxyBlueprint("one", false, rollout))
		for i := range fleetSize {
			w.gateway(ctx, gatewayName(i))
		}
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize}))
		Eventually(w.blueprintStatus(ctx)).Should(And(HaveField("CurrentRevision", int64(1)), HaveField("Revisions", ContainElement(gatewrightv1alpha1.RevisionGateways{Revision: 1, Gateways: fleetSize}))))
	}

	It("takes a good change to one Gateway first, then in waves to all, and makes it current", func(ctx SpecContext) {
		setUp(ctx, fastRollout)
		w.classAndBlueprint(ctx, proxyBlueprint("two", false, fastRollout))

		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize - 1, "two": 1}))
		Expect(w.rolloutStatus(ctx)()).To(And(HaveField("Revision", int64(2)), HaveField("From", int64(1)), HaveField("Wave", int32(0))))
		Consistently(w.greetings(ctx), "1s").Should(Equal(map[string]int{"one": fleetSize - 1, "two": 1}), "a second Gateway got the change before the first wave's soak")
		Expect(w.blueprintStatus(ctx)().CurrentRevision).To(BeEquivalentTo(1))
		first := w.rendering(ctx, "gateway."+gatewayName(0))
		Expect(first.TargetRevision).To(BeEquivalentTo(2), "the first in namespace/name order goes first")
		Expect(first.GatesRollout).To(BeTrue(), "a healthy Gateway gates its wave")

		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize / 2, "two": fleetSize / 2}))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"two": fleetSize}))
		Eventually(w.rolloutStatus(ctx)).Should(And(HaveField("Phase", gatewrightv1alpha1.RolloutComplete), HaveField("Updated", int32(fleetSize))))
		Eventually(w.blueprintStatus(ctx)).Should(And(HaveField("CurrentRevision", int64(2)), HaveField("TargetRevision", int64(2))))
	})

	It("rolls a change whose Deployment never becomes available back from its first Gateway, leaves the others alone, and says why; a fix converges", func(ctx SpecContext) {
		setUp(ctx, fastRollout)
		before := map[string]string{}
		for i := 1; i < fleetSize; i++ {
			before[gatewayName(i)] = w.rendering(ctx, "gateway."+gatewayName(i)).ResourceVersion
		}
		w.classAndBlueprint(ctx, proxyBlueprint("two", true, fastRollout))

		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize - 1, "two": 1}))
		Eventually(func() error {
			return k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: gatewayName(0) + "-proxy"}, &appsv1.Deployment{})
		}).Should(Succeed())

		Eventually(w.rolloutStatus(ctx), "30s").Should(HaveField("Phase", gatewrightv1alpha1.RolloutRolledBack))
		failure := w.rolloutStatus(ctx)().Failure
		Expect(failure).NotTo(BeNil())
		Expect(failure.Revision).To(BeEquivalentTo(2))
		Expect(failure.Gateways).To(Equal([]string{w.namespace + "/" + gatewayName(0)}))
		Expect(failure.Message).To(ContainSubstring("Deployment"))
		Eventually(func() []string {
			var events corev1.EventList
			Expect(k8s.List(ctx, &events, client.MatchingFields{"involvedObject.name": w.blueprint})).To(Succeed())
			var reasons []string
			for _, e := range events.Items {
				reasons = append(reasons, e.Reason)
			}
			return reasons
		}).Should(ContainElements("RolloutWave", "RolloutRolledBack"))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize}))
		Eventually(func() error {
			return k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: gatewayName(0) + "-proxy"}, &appsv1.Deployment{})
		}).ShouldNot(Succeed(), "the failed revision's Deployment is pruned with the rollback")
		Expect(w.blueprintStatus(ctx)().CurrentRevision).To(BeEquivalentTo(1))
		for name, version := range before {
			Expect(w.rendering(ctx, "gateway."+name).ResourceVersion).To(Equal(version), "Gateway %s outside the failed wave was touched", name)
		}

		w.classAndBlueprint(ctx, proxyBlueprint("three", false, fastRollout))
		Eventually(w.greetings(ctx), "60s").Should(Equal(map[string]int{"three": fleetSize}))
		Eventually(w.rolloutStatus(ctx)).Should(And(HaveField("Revision", int64(3)), HaveField("Phase", gatewrightv1alpha1.RolloutComplete), HaveField("Failure", BeNil())))
		Expect(w.blueprintStatus(ctx)().CurrentRevision).To(BeEquivalentTo(3))
	})

	It("changes every Gateway at once when the blueprint says all at once", func(ctx SpecContext) {
		setUp(ctx, "{strategy: AllAtOnce}")
		w.classAndBlueprint(ctx, proxyBlueprint("two", false, "{strategy: AllAtOnce}"))
		Eventually(w.rolloutStatus(ctx)).Should(And(HaveField("Revision", int64(2)), HaveField("Updated", int32(fleetSize))))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"two": fleetSize}))
		Eventually(w.rolloutStatus(ctx)).Should(HaveField("Phase", gatewrightv1alpha1.RolloutComplete))
		for i := range fleetSize {
			Expect(w.rendering(ctx, "gateway."+gatewayName(i)).TargetRevision).To(BeZero(), "all at once made the revision current: no Gateway is assigned it")
		}
	})

	It("rolls all at once back by making the revision it started from current again", func(ctx SpecContext) {
		allAtOnce := "{strategy: AllAtOnce, gateDeadlineSeconds: 12}"
		setUp(ctx, allAtOnce)
		w.classAndBlueprint(ctx, proxyBlueprint("two", true, allAtOnce))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"two": fleetSize}))
		Expect(w.blueprintStatus(ctx)().CurrentRevision).To(BeEquivalentTo(2))

		Eventually(w.rolloutStatus(ctx), "30s").Should(HaveField("Phase", gatewrightv1alpha1.RolloutRolledBack))
		Expect(w.rolloutStatus(ctx)().Failure.MoreGateways + int32(len(w.rolloutStatus(ctx)().Failure.Gateways))).To(BeEquivalentTo(fleetSize))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize}))
		Expect(w.blueprintStatus(ctx)().CurrentRevision).To(BeEquivalentTo(1))
		for i := range fleetSize {
			Expect(w.rendering(ctx, "gateway."+gatewayName(i)).TargetRevision).To(BeZero(), "the rollback wrote no Gateway's Rendering")
		}
	})

	It("starts no wave while paused, then goes on when resumed, and promotes on request", func(ctx SpecContext) {
		setUp(ctx, "{paused: true, soakSeconds: 60}")
		w.classAndBlueprint(ctx, proxyBlueprint("two", false, "{paused: true, soakSeconds: 60}"))
		Eventually(w.rolloutStatus(ctx)).Should(And(HaveField("Revision", int64(2)), HaveField("Phase", gatewrightv1alpha1.RolloutPaused)))
		Consistently(w.greetings(ctx), "2s").Should(Equal(map[string]int{"one": fleetSize}))

		w.classAndBlueprint(ctx, proxyBlueprint("two", false, "{soakSeconds: 60}"))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize - 1, "two": 1}))
		Expect(w.revisionNumbers(ctx)()).To(Equal([]int64{1, 2}), "a rollout-only edit made a revision")

		w.annotateBlueprint(ctx, gatewrightv1alpha1.AnnotationRolloutPromote, "2")
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"two": fleetSize}))
		Eventually(w.blueprintStatus(ctx)).Should(And(HaveField("CurrentRevision", int64(2)), HaveField("Rollout.Phase", gatewrightv1alpha1.RolloutComplete)))
	})

	It("ignores a promote of a revision rolled back, and gives it to every Gateway when the promote is forced", func(ctx SpecContext) {
		setUp(ctx, fastRollout)
		w.classAndBlueprint(ctx, proxyBlueprint("two", true, fastRollout))
		Eventually(w.rolloutStatus(ctx), "30s").Should(HaveField("Phase", gatewrightv1alpha1.RolloutRolledBack))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize}))
		phase := func(phase string) func() float64 {
			return metric("gatewright_blueprint_rollout_phase", "blueprint", w.blueprint, "phase", phase)
		}
		Expect(metric("gatewright_blueprint_rollbacks_total", "blueprint", w.blueprint)()).To(Equal(1.0))
		Expect(phase("RolledBack")()).To(Equal(1.0))
		Expect(metric("gatewright_blueprint_rollout_wave", "blueprint", w.blueprint)()).To(Equal(1.0))

		w.annotateBlueprint(ctx, gatewrightv1alpha1.AnnotationRolloutPromote, "2")
		Consistently(w.greetings(ctx), "3s").Should(Equal(map[string]int{"one": fleetSize}), "a promote without force gave a rolled-back revision to a Gateway")
		Expect(w.rolloutStatus(ctx)()).To(HaveField("Phase", gatewrightv1alpha1.RolloutRolledBack))

		w.annotateBlueprint(ctx, gatewrightv1alpha1.AnnotationRolloutForcePromote, "2")
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"two": fleetSize}))
		Eventually(w.blueprintStatus(ctx)).Should(And(HaveField("CurrentRevision", int64(2)),
			HaveField("Rollout.Phase", gatewrightv1alpha1.RolloutComplete), HaveField("Rollout.Failure", BeNil())))
		Consistently(w.blueprintStatus(ctx), "3s").Should(HaveField("CurrentRevision", int64(2)), "the promoted revision was rolled back again")
		Expect([]float64{phase("Progressing")(), phase("Paused")(), phase("Complete")(), phase("RolledBack")()}).To(Equal([]float64{0, 0, 1, 0}))
		Expect(metric("gatewright_blueprint_rollbacks_total", "blueprint", w.blueprint)()).To(Equal(1.0))
	})

	It("holds the rollout while an abort annotation is not a revision number, and says so on the blueprint", func(ctx SpecContext) {
		setUp(ctx, "{soakSeconds: 10}")
		w.classAndBlueprint(ctx, proxyBlueprint("two", false, "{soakSeconds: 10}"))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize - 1, "two": 1}))
		w.annotateBlueprint(ctx, gatewrightv1alpha1.AnnotationRolloutAbort, "yes")
		held := And(HaveField("Type", gatewrightv1alpha1.ConditionRolloutHeld), HaveField("Status", metav1.ConditionTrue),
			HaveField("Message", ContainSubstring(`annotation gatewright.dev/rollout-abort is "yes", not a revision number`)))
		Eventually(w.blueprintStatus(ctx)).Should(And(HaveField("Rollout.Phase", gatewrightv1alpha1.RolloutPaused), HaveField("Conditions", ContainElement(held))))
		Consistently(w.greetings(ctx), "12s").Should(Equal(map[string]int{"one": fleetSize - 1, "two": 1}), "a wave started past its soak though the abort could not be read")

		w.annotateBlueprint(ctx, gatewrightv1alpha1.AnnotationRolloutAbort, "2")
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize}))
		Eventually(w.blueprintStatus(ctx)).Should(HaveField("Conditions", Not(ContainElement(HaveField("Type", gatewrightv1alpha1.ConditionRolloutHeld)))))
	})

	It("sends a wave back at once when the provider aborts", func(ctx SpecContext) {
		setUp(ctx, "{soakSeconds: 60}")
		w.classAndBlueprint(ctx, proxyBlueprint("two", false, "{soakSeconds: 60}"))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize - 1, "two": 1}))
		w.annotateBlueprint(ctx, gatewrightv1alpha1.AnnotationRolloutAbort, "2")
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize}))
		Eventually(w.rolloutStatus(ctx)).Should(And(HaveField("Phase", gatewrightv1alpha1.RolloutRolledBack), HaveField("Failure.Message", ContainSubstring("aborted by the provider"))))
	})
})
