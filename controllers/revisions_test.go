package controllers_test

import (
	"context"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
)

// greetingBlueprint renders a ConfigMap per Gateway and per route on it whose greeting
// is written in the template, so that each edit of the greeting is a new spec, rolled
// out all at once: these tests are about revisions, not waves.
func greetingBlueprint(greeting string) string {
	return greetingRolledOut(greeting, "{strategy: AllAtOnce}")
}

// greetingRolledOut is greetingBlueprint with a spec.rollout of its own.
func greetingRolledOut(greeting, rollout string) string {
	return fmt.Sprintf(`
rollout: %[2]s
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {greeting: %[1]s}
httpRouteTemplate:
  resourceTemplates:
  - name: route-config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-on-{{ .Gateway.metadata.name }}}
      data: {greeting: %[1]s}
`, greeting, rollout)
}

// revisionNumbers lists the numbers of the world's blueprint's revisions, oldest first.
func (w world) revisionNumbers(ctx context.Context) func() []int64 {
	return func() []int64 {
		var list gatewrightv1alpha1.GatewayClassBlueprintRevisionList
		Expect(k8s.List(ctx, &list, client.MatchingLabels{gatewrightv1alpha1.LabelBlueprint: w.blueprint})).To(Succeed())
		out := []int64{}
		for _, rev := range list.Items {
			out = append(out, rev.Revision)
		}
		slices.Sort(out)
		return out
	}
}

// blueprintStatus returns the world's blueprint's status.
func (w world) blueprintStatus(ctx context.Context) func() gatewrightv1alpha1.GatewayClassBlueprintStatus {
	return func() gatewrightv1alpha1.GatewayClassBlueprintStatus {
		bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.blueprint}, bp)).To(Succeed())
		return bp.Status
	}
}

// runHeld tells whether the blueprint's current revision holds the class-wide
// GatewayClassConfig config, its rollout is complete, and each of gateways runs it.
func (w world) runHeld(ctx context.Context, config string, gateways ...string) func() bool {
	return func() bool {
		status := w.blueprintStatus(ctx)()
		if status.CurrentRevision == 0 || (status.Rollout != nil && status.Rollout.Phase != gatewrightv1alpha1.RolloutComplete) {
			return false
		}
		rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: revisions.Name(w.blueprint, status.CurrentRevision)}, rev); err != nil {
			return false
		}
		if !slices.ContainsFunc(rev.ClassConfigs, func(c gatewrightv1alpha1.RevisionClassConfig) bool { return c.Name == config }) {
			return false
		}
		for _, gateway := range gateways {
			if w.renderedRevision(ctx, gateway)() != status.CurrentRevision {
				return false
			}
		}
		return true
	}
}

// renderedRevision returns the revision a Gateway's Rendering records.
func (w world) renderedRevision(ctx context.Context, gateway string) func() int64 {
	return func() int64 {
		r := &gatewrightv1alpha1.Rendering{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "gateway." + gateway}, r); err != nil {
			return -1
		}
		return r.Revision
	}
}

// routeRenderedRevision returns the revision a route's Rendering records.
func (w world) routeRenderedRevision(ctx context.Context, route string) func() int64 {
	return func() int64 {
		var list gatewrightv1alpha1.RenderingList
		Expect(k8s.List(ctx, &list, client.InNamespace(w.namespace), client.MatchingLabels{gatewrightv1alpha1.LabelHTTPRouteName: route})).To(Succeed())
		if len(list.Items) != 1 {
			return -1
		}
		return list.Items[0].Revision
	}
}

// editGreeting makes the blueprint render greeting, and waits for the revision it makes.
func (w world) editGreeting(ctx context.Context, greeting string, revision int64) {
	w.classAndBlueprint(ctx, greetingBlueprint(greeting))
	Eventually(w.blueprintStatus(ctx)).Should(And(
		HaveField("TargetRevision", revision), HaveField("CurrentRevision", revision)))
}

// editPaused edits the greeting with the rollout paused: revision becomes the target,
// and reaches no Gateway until one is assigned it.
func (w world) editPaused(ctx context.Context, greeting string, revision int64) {
	w.classAndBlueprint(ctx, greetingRolledOut(greeting, "{strategy: AllAtOnce, paused: true}"))
	Eventually(w.blueprintStatus(ctx)).Should(And(
		HaveField("TargetRevision", revision), HaveField("CurrentRevision", revision-1)))
}

// assignRevision writes what the rollout engine will: a Gateway's targetRevision.
func (w world) assignRevision(ctx context.Context, gateway string, revision int64) {
	Eventually(func() error {
		r := &gatewrightv1alpha1.Rendering{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "gateway." + gateway}, r); err != nil {
			return err
		}
		r.TargetRevision, r.TargetBlueprint = revision, w.blueprint
		return k8s.Update(ctx, r)
	}).Should(Succeed())
}

var _ = Describe("GatewayClassBlueprint revisions", func() {
	var w world
	BeforeEach(func(ctx SpecContext) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, greetingBlueprint("one"))
		Eventually(w.blueprintStatus(ctx)).Should(And(HaveField("TargetRevision", int64(1)), HaveField("CurrentRevision", int64(1))))
		w.gateway(ctx, "web")
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("one")))
	})

	It("makes one revision per spec change, which the Gateways render and their Renderings record", func(ctx SpecContext) {
		Expect(w.revisionNumbers(ctx)()).To(Equal([]int64{1}))
		first := w.rendering(ctx, "gateway.web")
		Expect(first.Revision).To(BeEquivalentTo(1))
		Expect(first.ValuesHash).To(MatchRegexp("^[0-9a-f]{64}$"))

		w.editGreeting(ctx, "two", 2)
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("two")))
		Eventually(w.renderedRevision(ctx, "web")).Should(BeEquivalentTo(2))
		Expect(w.revisionNumbers(ctx)()).To(Equal([]int64{1, 2}))
		Eventually(w.blueprintStatus(ctx)).Should(HaveField("Revisions", Equal([]gatewrightv1alpha1.RevisionGateways{
			{Revision: 1, Gateways: 0}, {Revision: 2, Gateways: 1},
		})))

		rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.blueprint + "-2"}, rev)).To(Succeed())
		Expect(rev.Blueprint).To(Equal(w.blueprint))
		Expect(rev.Spec.GatewayTemplate.ResourceTemplates[0].Template).To(ContainSubstring("greeting: two"))
		Expect(rev.OwnerReferences).To(ConsistOf(And(HaveField("Name", w.blueprint), HaveField("Kind", "GatewayClassBlueprint"), HaveField("Controller", HaveValue(BeTrue())))))
	})

	It("makes a spec put back to an earlier revision's, as a revert in Git does, a new revision with that content, which rolls out as any change", func(ctx SpecContext) {
		w.editGreeting(ctx, "two", 2)
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("two")))
		Eventually(w.rolloutStatus(ctx)).Should(And(HaveField("Revision", int64(2)), HaveField("Phase", gatewrightv1alpha1.RolloutComplete)))

		w.editGreeting(ctx, "one", 3)
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("one")))
		Eventually(w.renderedRevision(ctx, "web")).Should(BeEquivalentTo(3))
		Expect(w.revisionNumbers(ctx)()).To(Equal([]int64{1, 2, 3}), "the revert reused an old revision number")
		first, reverted := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}, &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.blueprint + "-1"}, first)).To(Succeed())
		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.blueprint + "-3"}, reverted)).To(Succeed())
		Expect(reverted.Hash).To(Equal(first.Hash), "revision 3 holds revision 1's content")
		Eventually(w.rolloutStatus(ctx)).Should(And(HaveField("Revision", int64(3)), HaveField("From", int64(2)), HaveField("Phase", gatewrightv1alpha1.RolloutComplete)))
	})

	It("makes no revision, and rewrites no Rendering, for a spec applied again unchanged or an edit of metadata", func(ctx SpecContext) {
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
		written := w.rendering(ctx, "gateway.web").ResourceVersion
		w.classAndBlueprint(ctx, greetingBlueprint("one"))
		Eventually(func() error { // the blueprint's status writes may race this update
			bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
			if err := k8s.Get(ctx, client.ObjectKey{Name: w.blueprint}, bp); err != nil {
				return err
			}
			bp.Labels = map[string]string{"team": "platform"}
			return k8s.Update(ctx, bp)
		}).Should(Succeed())

		// A second Gateway's Rendering has the blueprint reconciled after the edits.
		w.gateway(ctx, "api")
		Eventually(w.blueprintStatus(ctx)).Should(HaveField("Revisions", Equal([]gatewrightv1alpha1.RevisionGateways{{Revision: 1, Gateways: 2}})))
		Expect(w.revisionNumbers(ctx)()).To(Equal([]int64{1}))
		Expect(w.rendering(ctx, "gateway.web").ResourceVersion).To(Equal(written))
	})

	It("makes no revision of a spec that does not parse, and Gateways, new ones too, keep rendering the last revision", func(ctx SpecContext) {
		w.classAndBlueprint(ctx, greetingBlueprint("{{ .Values.broken"))
		Eventually(w.blueprintCondition(ctx)).Should(HavePrefix("False/InvalidTemplates"))
		Expect(w.revisionNumbers(ctx)()).To(Equal([]int64{1}))
		Expect(w.blueprintStatus(ctx)()).To(And(HaveField("TargetRevision", int64(1)), HaveField("CurrentRevision", int64(1))))

		w.gateway(ctx, "late")
		Eventually(w.configMap(ctx, "late-config")).Should(WithTransform(configMapData("greeting"), Equal("one")))
		Eventually(w.gatewayCondition(ctx, "late", "Programmed")).Should(HavePrefix("True/Programmed"))
		Expect(w.renderedRevision(ctx, "late")()).To(BeEquivalentTo(1))
	})

	It("renders a Gateway with the newer targetRevision its Rendering names, while the others run currentRevision", func(ctx SpecContext) {
		w.gateway(ctx, "api")
		Eventually(w.configMap(ctx, "api-config")).Should(WithTransform(configMapData("greeting"), Equal("one")))
		w.editPaused(ctx, "two", 2)

		w.assignRevision(ctx, "web", 2)
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("two")))
		Eventually(w.renderedRevision(ctx, "web")).Should(BeEquivalentTo(2))
		Expect(w.rendering(ctx, "gateway.web").TargetRevision).To(BeEquivalentTo(2))
		Expect(w.renderedRevision(ctx, "api")()).To(BeEquivalentTo(1))
		Expect(w.configMap(ctx, "api-config")()).To(WithTransform(configMapData("greeting"), Equal("one")))
		Eventually(w.blueprintStatus(ctx)).Should(HaveField("Revisions", Equal([]gatewrightv1alpha1.RevisionGateways{
			{Revision: 1, Gateways: 1}, {Revision: 2, Gateways: 1},
		})))
	})

	It("starts a Gateway moved to another blueprint's class from that blueprint's current revision, not the number the other assigned it", func(ctx SpecContext) {
		w.editPaused(ctx, "two", 2)
		w.assignRevision(ctx, "web", 2)
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("two")))

		other := world{namespace: w.namespace, class: w.class + "-other", blueprint: w.blueprint + "-other"}
		other.classAndBlueprint(ctx, greetingBlueprint("other-one"))
		Eventually(other.blueprintStatus(ctx)).Should(HaveField("CurrentRevision", int64(1)))
		other.editPaused(ctx, "other-two", 2) // its provider holds revision 2 back

		other.gateway(ctx, "web")
		Eventually(w.configMap(ctx, "web-config")).Should(WithTransform(configMapData("greeting"), Equal("other-one")))
		Consistently(w.configMap(ctx, "web-config"), "1s").Should(WithTransform(configMapData("greeting"), Equal("other-one")))
	})

	It("renders a route on a Gateway with the revision the Gateway runs, and records it", func(ctx SpecContext) {
		w.route(ctx, w.namespace, "shop", w.namespace)
		Eventually(w.configMap(ctx, "shop-on-web")).Should(WithTransform(configMapData("greeting"), Equal("one")))
		Eventually(w.routeRenderedRevision(ctx, "shop")).Should(BeEquivalentTo(1))

		w.editPaused(ctx, "two", 2)
		Consistently(w.configMap(ctx, "shop-on-web"), "1s").Should(WithTransform(configMapData("greeting"), Equal("one")))

		w.assignRevision(ctx, "web", 2)
		Eventually(w.configMap(ctx, "shop-on-web")).Should(WithTransform(configMapData("greeting"), Equal("two")))
		Eventually(w.routeRenderedRevision(ctx, "shop")).Should(BeEquivalentTo(2))
	})

	It("keeps the newest 10 revisions and any older one a Gateway runs", func(ctx SpecContext) {
		// A paused rollout leaves the Gateway on revision 1 however many come after it.
		for n := int64(2); n <= 12; n++ {
			w.classAndBlueprint(ctx, greetingRolledOut(fmt.Sprintf("v%d", n), "{paused: true}"))
			Eventually(w.blueprintStatus(ctx)).Should(HaveField("TargetRevision", n))
		}
		Eventually(w.revisionNumbers(ctx)).Should(Equal([]int64{1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}))
		Expect(w.renderedRevision(ctx, "web")()).To(BeEquivalentTo(1))
		Expect(w.configMap(ctx, "web-config")()).To(WithTransform(configMapData("greeting"), Equal("one")))
		Expect(w.blueprintStatus(ctx)().Revisions).To(HaveLen(11))
	})

	It("refuses any change to a revision", func(ctx SpecContext) {
		rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.blueprint + "-1"}, rev)).To(Succeed())
		rev.Spec.GatewayTemplate.ResourceTemplates[0].Template = "kind: Secret"
		err := k8s.Update(ctx, rev)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("spec is immutable"))

		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.blueprint + "-1"}, rev)).To(Succeed())
		rev.Revision = 7
		err = k8s.Update(ctx, rev)
		Expect(err.Error()).To(ContainSubstring("revision is immutable"))
	})
})
