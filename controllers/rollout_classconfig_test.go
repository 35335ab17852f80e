package controllers_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// portsBlueprint renders a ConfigMap per Gateway with the greeting and the ports of the
// values; ports that are not a list (a wrongly typed value) fail the render.
const portsBlueprint = `
rollout: ` + fastRollout + `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data:
        greeting: {{ .Values.greeting | quote }}
        ports: "{{ range .Values.ports }}{{ . }} {{ end }}"
`

// fleetConfig is the class-wide GatewayClassConfig of the world's class with the given
// defaults and, unless empty, rolloutWithBlueprint.
func fleetConfig(defaults, rides string) string {
	flag := ""
	if rides != "" {
		flag = "\n  rolloutWithBlueprint: " + rides
	}
	return `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: CLASS-fleet, namespace: ` + controllerNamespace + `}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: CLASS}]` + flag + `
  default: ` + defaults + `
`
}

// renderingVersions are the resourceVersions of the fleet's Gateways' Renderings, from
// the first'th on.
func (w world) renderingVersions(ctx context.Context, first int) map[string]string {
	versions := map[string]string{}
	for i := first; i < fleetSize; i++ {
		versions[gatewayName(i)] = w.rendering(ctx, "gateway."+gatewayName(i)).ResourceVersion
	}
	return versions
}

var _ = Describe("A class-wide GatewayClassConfig's rollout", func() {
	var w world
	setUp := func(ctx context.Context, config string) {
		w = newWorld(ctx)
		w.apply(ctx, config)
		// Creation times count seconds: a config made in the second of a revision counts as
		// made since it (revisions.WithHeld), and the config is to be older.
		time.Sleep(time.Second)
		w.classAndBlueprint(ctx, portsBlueprint)
		for i := range fleetSize {
			w.gateway(ctx, gatewayName(i))
		}
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize}))
		Eventually(w.blueprintStatus(ctx)).Should(And(HaveField("CurrentRevision", int64(1)), HaveField("Rollout.Phase", gatewrightv1alpha1.RolloutComplete)))
	}

	It("takes a change to the Gateways in the blueprint's waves by default, and rolls a wrongly typed value back from the first wave", func(ctx SpecContext) {
		setUp(ctx, fleetConfig("{greeting: one, ports: [80]}", ""))
		rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.blueprint + "-1"}, rev)).To(Succeed())
		Expect(rev.ClassConfigs).To(ConsistOf(HaveField("Name", w.class+"-fleet")), "a class-wide config without the field rides")

		w.apply(ctx, fleetConfig("{greeting: two, ports: [80]}", ""))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize - 1, "two": 1}))
		Expect(w.rolloutStatus(ctx)()).To(And(HaveField("Revision", int64(2)), HaveField("Wave", int32(0))))
		Expect(w.rendering(ctx, "gateway."+gatewayName(0)).TargetRevision).To(BeEquivalentTo(2), "the first Gateway in order goes first")
		Consistently(w.greetings(ctx), "1s").Should(Equal(map[string]int{"one": fleetSize - 1, "two": 1}), "the config reached a second Gateway before the first wave's soak")
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize / 2, "two": fleetSize / 2}))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"two": fleetSize}))
		Eventually(w.rolloutStatus(ctx)).Should(And(HaveField("Revision", int64(2)), HaveField("Phase", gatewrightv1alpha1.RolloutComplete)))

		// ports as a string: the template cannot range over it, and every Gateway that got
		// it would fail to render.
		untouched := w.renderingVersions(ctx, 1)
		w.apply(ctx, fleetConfig(`{greeting: three, ports: "80"}`, ""))
		Eventually(w.rolloutStatus(ctx)).Should(And(HaveField("Revision", int64(3)), HaveField("Wave", int32(0))))
		Eventually(w.gatewayCondition(ctx, gatewayName(0), "Programmed")).Should(HavePrefix("False/Invalid: "))
		Eventually(w.rolloutStatus(ctx), "30s").Should(HaveField("Phase", gatewrightv1alpha1.RolloutRolledBack))
		failure := w.rolloutStatus(ctx)().Failure
		Expect(failure).NotTo(BeNil())
		Expect(failure.Revision).To(BeEquivalentTo(3))
		Expect(failure.Wave).To(BeEquivalentTo(0))
		Expect(failure.Gateways).To(Equal([]string{w.namespace + "/" + gatewayName(0)}))
		Eventually(w.gatewayCondition(ctx, gatewayName(0), "Programmed")).Should(HavePrefix("True/"))
		Expect(w.greetings(ctx)()).To(Equal(map[string]int{"two": fleetSize}), "a Gateway rendered the failed revision's values")
		Expect(w.blueprintStatus(ctx)().CurrentRevision).To(BeEquivalentTo(2))
		Expect(w.renderingVersions(ctx, 1)).To(Equal(untouched), "a Gateway outside the failed wave was touched")
	})

	It("takes in a config that starts riding without changing what any Gateway renders, and without waves", func(ctx SpecContext) {
		setUp(ctx, fleetConfig("{greeting: one, ports: [80, 443]}", "false"))
		rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.blueprint + "-1"}, rev)).To(Succeed())
		Expect(rev.ClassConfigs).To(BeEmpty(), "a config that opts out rides in no revision")
		type rendered struct{ valuesHash, configVersion string }
		renderedNow := func() map[string]rendered {
			out := map[string]rendered{}
			for i := range fleetSize {
				cm, err := w.configMap(ctx, gatewayName(i)+"-config")()
				Expect(err).NotTo(HaveOccurred())
				out[gatewayName(i)] = rendered{w.rendering(ctx, "gateway."+gatewayName(i)).ValuesHash, cm.ResourceVersion}
			}
			return out
		}
		before := renderedNow()

		// Dropping the opt-out, as upgrading to riding by default does.
		w.apply(ctx, fleetConfig("{greeting: one, ports: [80, 443]}", ""))
		Eventually(w.blueprintStatus(ctx)).Should(And(HaveField("TargetRevision", int64(2)), HaveField("CurrentRevision", int64(2)),
			HaveField("Rollout.Revision", int64(2)), HaveField("Rollout.Phase", gatewrightv1alpha1.RolloutComplete)))
		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.blueprint + "-2"}, rev)).To(Succeed())
		Expect(rev.ClassConfigs).To(ConsistOf(HaveField("Name", w.class+"-fleet")))
		for i := range fleetSize {
			Eventually(w.renderedRevision(ctx, gatewayName(i))).Should(BeEquivalentTo(2))
			Expect(w.rendering(ctx, "gateway."+gatewayName(i)).TargetRevision).To(BeZero(), "the revision was assigned in a wave: it renders as the current one did")
		}
		Expect(renderedNow()).To(Equal(before), "a Gateway's values hash or ConfigMap changed")

		// From now on its changes ride the waves.
		w.apply(ctx, fleetConfig("{greeting: two, ports: [80, 443]}", ""))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"one": fleetSize - 1, "two": 1}))
		Expect(w.rolloutStatus(ctx)()).To(And(HaveField("Revision", int64(3)), HaveField("Phase", gatewrightv1alpha1.RolloutProgressing)))
	})

	It("applies a change of a config that opts out at once", func(ctx SpecContext) {
		setUp(ctx, fleetConfig("{greeting: one, ports: [80]}", "false"))
		w.apply(ctx, fleetConfig("{greeting: two, ports: [80]}", "false"))
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"two": fleetSize}))
		Expect(w.revisionNumbers(ctx)()).To(Equal([]int64{1}), "an opted-out config's change made a revision")
	})

	It("makes no revision while more riding GatewayClassConfigs target its classes than a revision holds, and says so on the blueprint", func(ctx SpecContext) {
		setUp(ctx, fleetConfig("{greeting: one, ports: [80]}", "false"))
		for i := range gatewrightv1alpha1.MaxRevisionClassConfigs + 1 {
			w.apply(ctx, fmt.Sprintf(`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: CLASS-fleet-%02d, namespace: %s}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: CLASS}]
  default: {riding: %d}
`, i, controllerNamespace, i))
		}
		Eventually(clusterEvents(ctx, "GatewayClassBlueprint", w.blueprint)).Should(ContainElement(
			And(HavePrefix("RevisionNotWritten: "), ContainSubstring("a revision holds at most 32"), HaveSuffix("the Gateways keep the revision they run"))))
		// Configs up to the bound made revisions as they came; past it none is made, and
		// with one config fewer the next revision holds them all.
		numbers := w.revisionNumbers(ctx)()
		Consistently(w.revisionNumbers(ctx), "2s").Should(Equal(numbers))
		Expect(k8s.Delete(ctx, &gatewrightv1alpha1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{
			Namespace: controllerNamespace, Name: fmt.Sprintf("%s-fleet-%02d", w.class, gatewrightv1alpha1.MaxRevisionClassConfigs),
		}})).To(Succeed())
		Eventually(func() []gatewrightv1alpha1.RevisionClassConfig {
			numbers := w.revisionNumbers(ctx)()
			newest := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
			Expect(k8s.Get(ctx, client.ObjectKey{Name: fmt.Sprintf("%s-%d", w.blueprint, numbers[len(numbers)-1])}, newest)).To(Succeed())
			return newest.ClassConfigs
		}).Should(HaveLen(gatewrightv1alpha1.MaxRevisionClassConfigs))
	})
})
