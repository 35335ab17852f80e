package controllers_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"

	"github.com/gatewright/gatewright/test/testenv"
)

func (w world) classCondition(ctx context.Context) func() string {
	return func() string {
		class := &gatewayv1.GatewayClass{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: w.class}, class); err != nil {
			return err.Error()
		}
		return testenv.Condition(class.Status.Conditions, "Accepted", class.Generation)
	}
}

func (w world) classFinalizers(ctx context.Context) func() []string {
	return func() []string {
		class := &gatewayv1.GatewayClass{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.class}, class)).To(Succeed())
		return class.Finalizers
	}
}

func (w world) blueprintCondition(ctx context.Context) func() string {
	return w.blueprintConditionOf(ctx, "Accepted")
}

// defaultFeatures are the supportedFeatures of a class whose blueprint names none.
var defaultFeatures = []gatewayv1.FeatureName{"Gateway", "GatewayInfrastructure", "GatewayPort8080", "HTTPRoute", "HTTPRouteParentRefPort", "ReferenceGrant"}

// supportedFeatures returns the names of the world's class's status.supportedFeatures.
func (w world) supportedFeatures(ctx context.Context) func() []gatewayv1.FeatureName {
	return func() []gatewayv1.FeatureName {
		class := &gatewayv1.GatewayClass{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: w.class}, class)).To(Succeed())
		var names []gatewayv1.FeatureName
		for _, f := range class.Status.SupportedFeatures {
			names = append(names, f.Name)
		}
		return names
	}
}

func (w world) blueprintConditionOf(ctx context.Context, conditionType string) func() string {
	return func() string {
		bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: w.blueprint}, bp); err != nil {
			return err.Error()
		}
		return testenv.Condition(bp.Status.Conditions, conditionType, bp.Generation)
	}
}

var _ = Describe("GatewayClass and GatewayClassBlueprint", func() {
	It("accepts a class whose blueprint is sound", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, `
gatewayTemplate:
  resourceTemplates:
  - {name: config, template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"}
`)
		Eventually(w.classCondition(ctx)).Should(Equal("True/Accepted: implemented by GatewayClassBlueprint " + w.blueprint))
		Eventually(w.blueprintCondition(ctx)).Should(HavePrefix("True/Accepted"))
	})

	It("lists the Gateway API features Gatewright supports in the class's status, sorted by name", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		Eventually(w.supportedFeatures(ctx)).Should(Equal(defaultFeatures))
	})

	It("lists the features and judges the listeners by what the blueprint serves, and follows a new revision that serves otherwise", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, `
rollout: {strategy: AllAtOnce}
serves:
  protocols: [HTTP, TCP]
  routeKinds: [HTTPRoute, TCPRoute]
  features: [TCPRoute, HTTPRoute, Gateway]
`+configBlueprint)
		w.gatewayWithListeners(ctx, "web", `
- {name: http, protocol: HTTP, port: 80}
- {name: tcp, protocol: TCP, port: 9000}`)
		Eventually(w.supportedFeatures(ctx)).Should(Equal([]gatewayv1.FeatureName{"Gateway", "HTTPRoute", "TCPRoute"}))
		Eventually(w.listeners(ctx, "web")).Should(Equal([]string{
			"http Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[HTTPRoute] routes=0",
			"tcp Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[TCPRoute] routes=0",
		}))

		By("a new revision that says nothing of what it serves serves HTTP and HTTPRoute, and lists the default features")
		w.classAndBlueprint(ctx, "rollout: {strategy: AllAtOnce}\n"+configBlueprint)
		Eventually(w.revisionNumbers(ctx)).Should(Equal([]int64{1, 2}))
		Eventually(w.supportedFeatures(ctx)).Should(Equal(defaultFeatures))
		Eventually(w.listeners(ctx, "web")).Should(Equal([]string{
			"http Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[HTTPRoute] routes=0",
			"tcp Accepted=False/UnsupportedProtocol ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=False/Invalid kinds=[] routes=0",
		}))
		Expect(w.gatewayCondition(ctx, "web", "Accepted")()).To(Equal("True/ListenersNotValid: listeners not valid: tcp (UnsupportedProtocol); valid: http"))
	})

	It("shows on the blueprint what gatewright lint --strict warns about, and clears it once fixed", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, `
gatewayTemplate:
  resourceTemplates:
  - {name: config, template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {greeting: {{ .Values.greeting }}}\n"}
`)
		Eventually(w.blueprintConditionOf(ctx, gatewrightv1alpha1.ConditionLinted)).Should(And(
			HavePrefix("False/Warnings: 1 warning(s), as gatewright lint prints them: template gateway/config, line 4: {{ .Values.greeting }} is printed into YAML unquoted"),
		))
		Expect(w.blueprintCondition(ctx)()).To(HavePrefix("True/Accepted"), "a warning does not stop the blueprint")
		w.classAndBlueprint(ctx, `
gatewayTemplate:
  resourceTemplates:
  - {name: config, template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {greeting: {{ .Values.greeting | quote }}}\n"}
`)
		Eventually(w.blueprintConditionOf(ctx, gatewrightv1alpha1.ConditionLinted)).Should(Equal("True/NoWarnings: gatewright lint --strict finds nothing to warn about"))
	})

	It("tells the blueprint's author, on the blueprint and its class, which Gateways fail to render, once per change", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))
		Eventually(w.blueprintConditionOf(ctx, gatewrightv1alpha1.ConditionRendered)).Should(Equal("True/Rendered: no Gateway or route fails to render or apply"))

		// It parses, so the blueprint is accepted; what it renders is not YAML.
		w.classAndBlueprint(ctx, `
gatewayTemplate:
  resourceTemplates:
  - {name: config, template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n"}
`)
		failing := MatchRegexp(`^False/RenderFailed: 1 Gateway\(s\) fail to render or apply: ` + w.namespace + `/web: GatewayClassBlueprint ` + w.blueprint + `, template gateway/config.*not valid YAML`)
		Eventually(w.blueprintConditionOf(ctx, gatewrightv1alpha1.ConditionRendered)).Should(failing)
		Expect(w.blueprintCondition(ctx)()).To(HavePrefix("True/Accepted"))
		Eventually(func() string {
			class := &gatewayv1.GatewayClass{}
			Expect(k8s.Get(ctx, client.ObjectKey{Name: w.class}, class)).To(Succeed())
			return testenv.Condition(class.Status.Conditions, gatewrightv1alpha1.ConditionRendered, class.Generation)
		}).Should(failing)
		Eventually(func() (int32, error) {
			bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
			err := k8s.Get(ctx, client.ObjectKey{Name: w.blueprint}, bp)
			return bp.Status.FailingGateways, err
		}).Should(Equal(int32(1)))

		w.classAndBlueprint(ctx, configBlueprint)
		Eventually(w.blueprintConditionOf(ctx, gatewrightv1alpha1.ConditionRendered)).Should(HavePrefix("True/Rendered"))
		// Each edit also starts a rollout, which has events of its own.
		Eventually(clusterEvents(ctx, "GatewayClassBlueprint", w.blueprint)).Should(WithTransform(withoutRolloutEvents, ConsistOf(
			HavePrefix("RenderFailed: 1 Gateway(s) fail"), HavePrefix("Rendered: no Gateway or route fails"),
		)))

		// A route template that fails: the route says so, and so does the blueprint.
		w.classAndBlueprint(ctx, configBlueprint+`
httpRouteTemplate:
  resourceTemplates:
  - {name: route, template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y\n"}
`)
		w.route(ctx, w.namespace, "shop", w.namespace)
		Eventually(w.blueprintConditionOf(ctx, gatewrightv1alpha1.ConditionRendered)).Should(MatchRegexp(
			`^False/RenderFailed: 1 route\(s\) fail to render or apply: ` + w.namespace + `/shop on Gateway ` + w.namespace + `/web: .*not valid YAML`))
	})

	It("refuses a class whose blueprint is missing, and accepts it once the blueprint appears", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: CLASS}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: BLUEPRINT}
`)
		Eventually(w.classCondition(ctx)).Should(Equal("False/InvalidParameters: GatewayClassBlueprint " + w.blueprint + " not found"))
		w.classAndBlueprint(ctx, "gatewayTemplate: {}\n")
		Eventually(w.classCondition(ctx)).Should(HavePrefix("True/Accepted"))
	})

	It("refuses a blueprint whose template does not parse, naming template and line, and the classes using it", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, `
gatewayTemplate:
  resourceTemplates:
  - {name: config, template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Gateway.metadata.name }\n"}
`)
		want := "False/InvalidTemplates: GatewayClassBlueprint " + w.blueprint + `, template gateway/config, line 3: unexpected "}" in operand`
		Eventually(w.blueprintCondition(ctx)).Should(Equal(want))
		Eventually(w.classCondition(ctx)).Should(ContainSubstring("False/InvalidParameters: GatewayClassBlueprint " + w.blueprint + " is not accepted"))
	})

	It("holds a class with the Gateway API's finalizer while a Gateway uses it, even when the class is deleted", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		Eventually(w.classCondition(ctx)).Should(HavePrefix("True/Accepted"))
		Consistently(w.classFinalizers(ctx), "1s").Should(BeEmpty())

		w.gateway(ctx, "web")
		Eventually(w.classFinalizers(ctx)).Should(ConsistOf(gatewayv1.GatewayClassFinalizerGatewaysExist))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/"))

		Expect(k8s.Delete(ctx, &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: w.class}})).To(Succeed())
		Eventually(w.classCondition(ctx)).Should(HaveSuffix("; being deleted: waits until its 1 Gateway(s) are gone"))
		Consistently(func() error {
			class := &gatewayv1.GatewayClass{}
			if err := k8s.Get(ctx, client.ObjectKey{Name: w.class}, class); err != nil {
				return err
			}
			Expect(class.DeletionTimestamp).NotTo(BeNil())
			_, err := w.configMap(ctx, "web-config")()
			return err
		}).Should(Succeed())

		Expect(k8s.Delete(ctx, w.getGateway(ctx, "web"))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Name: w.class}, &gatewayv1.GatewayClass{}))
		}).Should(BeTrue())
	})

	It("lets go of a class once no Gateway uses it", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		w.gateway(ctx, "web")
		Eventually(w.classFinalizers(ctx)).Should(ConsistOf(gatewayv1.GatewayClassFinalizerGatewaysExist))
		Expect(k8s.Delete(ctx, w.getGateway(ctx, "web"))).To(Succeed())
		Eventually(w.classFinalizers(ctx)).Should(BeEmpty())
	})

	It("leaves classes of other controllers alone", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: CLASS}
spec:
  controllerName: example.com/other
`)
		// The CRD's default status stays: Unknown/Pending, never observed.
		Consistently(w.classCondition(ctx)).Should(Equal("stale (generation 1, observed 0)"))
	})
})

// withoutRolloutEvents leaves out of events those of a blueprint's rollout.
func withoutRolloutEvents(events []string) []string {
	var out []string
	for _, e := range events {
		if !strings.HasPrefix(e, "Rollout") {
			out = append(out, e)
		}
	}
	return out
}

// clusterEvents returns the events on a cluster-scoped object as "Reason: message".
func clusterEvents(ctx context.Context, kind, name string) func() ([]string, error) {
	return func() ([]string, error) {
		var events corev1.EventList
		if err := k8s.List(ctx, &events); err != nil {
			return nil, err
		}
		var out []string
		for _, e := range events.Items {
			if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name {
				out = append(out, e.Reason+": "+e.Message)
			}
		}
		return out, nil
	}
}
