package controllers_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// tenantsRollout soaks long enough for a tenant to act within a wave, and gives a wave
// little more than that to pass.
const tenantsRollout = "{soakSeconds: 6, gateDeadlineSeconds: 15}"

// cappedBlueprint renders a ConfigMap per Gateway with its greeting (a string, by the
// values schema) and its replicas; with capped, the provider's override caps replicas
// at 3. A Gateway whose values ask for a proxy also gets a Deployment, which never
// becomes available on an API server without a kube-controller-manager.
func cappedBlueprint(capped bool, rollout string) string {
	override := ""
	if capped {
		override = "\n  override: {replicas: 3}"
	}
	return fmt.Sprintf(`
rollout: %s
values:
  default: {greeting: hello, replicas: 1}%s
valuesSchema:
  type: object
  properties:
    greeting: {type: string}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {greeting: {{ .Values.greeting | quote }}, replicas: {{ .Values.replicas | quote }}}
  - name: proxy
    template: |
      {{- if .Values.proxy }}
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: {{ .Gateway.metadata.name }}-proxy}
      spec:
        selector: {matchLabels: {app: proxy}}
        template:
          metadata: {labels: {app: proxy}}
          spec: {containers: [{name: proxy, image: envoyproxy/envoy}]}
      {{- end }}
`, rollout, override)
}

// replicas counts the fleet's Gateways by the replicas their ConfigMap has.
func (w world) replicas(ctx context.Context) func() map[string]int {
	return func() map[string]int {
		out := map[string]int{}
		for i := range fleetSize {
			cm := &corev1.ConfigMap{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: gatewayName(i) + "-config"}, cm); err != nil {
				out["none"]++
				continue
			}
			out[cm.Data["replicas"]]++
		}
		return out
	}
}

// excusedGateways are the Gateways the rollout's status excuses, with why.
func (w world) excusedGateways(ctx context.Context) func() map[string]string {
	return func() map[string]string {
		out := map[string]string{}
		if st := w.rolloutStatus(ctx)(); st != nil && st.Excused != nil {
			for _, e := range st.Excused.Gateways {
				out[e.Gateway] = e.Reason
			}
		}
		return out
	}
}

// gatewayConfig applies a GatewayConfig of the world's namespace targeting a Gateway.
func (w world) gatewayConfig(ctx context.Context, name, gateway, defaults string) {
	w.apply(ctx, fmt.Sprintf(`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: %s, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: %s}]
  default: %s
`, name, gateway, defaults))
}

var _ = Describe("A blueprint's rollout, against its tenants", func() {
	var w world
	setUp := func(ctx context.Context, spec string) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, spec)
		for i := range fleetSize {
			w.gateway(ctx, gatewayName(i))
		}
		Eventually(w.blueprintStatus(ctx)).Should(And(HaveField("CurrentRevision", int64(1)), HaveField("Revisions", ContainElement(gatewrightv1alpha1.RevisionGateways{Revision: 1, Gateways: fleetSize}))))
	}
	lastWave := And(HaveField("Revision", int64(2)), HaveField("Wave", int32(3)), HaveField("Phase", gatewrightv1alpha1.RolloutProgressing))

	It("completes the provider's cap when the tenant put last breaks its own Gateway during the last wave, and names it as excused", func(ctx SpecContext) {
		setUp(ctx, cappedBlueprint(false, tenantsRollout))
		last := gatewayName(fleetSize - 1)
		w.classAndBlueprint(ctx, cappedBlueprint(true, tenantsRollout))
		Eventually(w.rolloutStatus(ctx), "30s", "100ms").Should(lastWave)
		// The revision reaches the tenant's Gateway before its tenant breaks it: a render
		// that fails keeps the objects of the last one, so only then does every Gateway run
		// the cap. The wave's soak starts no earlier than this render.
		Eventually(w.configMap(ctx, last+"-config"), "10s", "100ms").Should(WithTransform(configMapData("replicas"), Equal("3")))

		w.gatewayConfig(ctx, "mine", last, "{greeting: 42, replicas: 50}") // not a string: its render fails
		Eventually(w.gatewayCondition(ctx, last, "Programmed")).Should(HavePrefix("False/Invalid"))

		Eventually(w.rolloutStatus(ctx), "30s").Should(HaveField("Phase", gatewrightv1alpha1.RolloutComplete))
		Expect(w.blueprintStatus(ctx)().CurrentRevision).To(BeEquivalentTo(2), "the provider's cap was rolled back")
		Expect(w.excusedGateways(ctx)()).To(HaveKeyWithValue(w.namespace+"/"+last, ContainSubstring("its Gateway, GatewayConfigs or routes changed")))
		Eventually(w.replicas(ctx)).Should(Equal(map[string]int{"3": fleetSize}))

		w.gatewayConfig(ctx, "mine", last, "{greeting: mended, replicas: 50}")
		Eventually(w.gatewayCondition(ctx, last, "Programmed")).Should(HavePrefix("True"))
		Consistently(w.replicas(ctx), "2s").Should(Equal(map[string]int{"3": fleetSize}), "mended, the tenant's Gateway runs past the cap")
	})

	It("does not let a broken Gateway moved into the class during the last wave gate it", func(ctx SpecContext) {
		setUp(ctx, cappedBlueprint(false, tenantsRollout))
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: CLASS-elsewhere}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: BLUEPRINT-elsewhere}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: BLUEPRINT-elsewhere}
spec:
`+indent(proxyBlueprint("elsewhere", false, "{strategy: AllAtOnce}"), "  "))
		w.gatewayConfig(ctx, "wants-a-proxy", "moved", "{proxy: true}")
		w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: moved, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS-elsewhere
  listeners: [{name: http, protocol: HTTP, port: 80}]
`)
		Eventually(w.gatewayCondition(ctx, "moved", "Programmed")).Should(HavePrefix("True"), "healthy in its first class")

		w.classAndBlueprint(ctx, cappedBlueprint(true, tenantsRollout))
		Eventually(w.rolloutStatus(ctx), "30s", "100ms").Should(lastWave)
		Eventually(func() error {
			gw := w.getGateway(ctx, "moved")
			gw.Spec.GatewayClassName = gatewayv1.ObjectName(w.class)
			return k8s.Update(ctx, gw)
		}).Should(Succeed())
		Eventually(w.gatewayCondition(ctx, "moved", "Programmed")).Should(HavePrefix("False/"), "its Deployment never becomes available")

		Eventually(w.rolloutStatus(ctx), "30s").Should(HaveField("Phase", gatewrightv1alpha1.RolloutComplete))
		Expect(w.blueprintStatus(ctx)().CurrentRevision).To(BeEquivalentTo(2))
		Expect(w.rolloutStatus(ctx)().Failure).To(BeNil())
	})

	It("neither waits for nor replaces a Gateway of the wave deleted and recreated during it", func(ctx SpecContext) {
		setUp(ctx, proxyBlueprint("one", false, tenantsRollout))
		w.classAndBlueprint(ctx, proxyBlueprint("two", false, tenantsRollout))
		first, second := gatewayName(0), gatewayName(1)
		Eventually(w.configMap(ctx, first+"-config")).Should(WithTransform(configMapData("greeting"), Equal("two")))

		gw := w.getGateway(ctx, first)
		Expect(k8s.Delete(ctx, gw)).To(Succeed())
		Eventually(func() bool {
			again := &gatewayv1.Gateway{}
			err := k8s.Get(ctx, client.ObjectKeyFromObject(gw), again)
			return err != nil || again.UID != gw.UID
		}).Should(BeTrue())
		w.gateway(ctx, first)
		Consistently(w.configMap(ctx, second+"-config"), "3s").Should(WithTransform(configMapData("greeting"), Equal("one")),
			"the next Gateway in order stood in for the deleted one in its wave")

		Eventually(w.rolloutStatus(ctx), "60s").Should(HaveField("Phase", gatewrightv1alpha1.RolloutComplete))
		Expect(w.rolloutStatus(ctx)().Failure).To(BeNil())
		Eventually(w.greetings(ctx)).Should(Equal(map[string]int{"two": fleetSize}))
	})

	It("completes a wave's soak while a tenant attaches a route to its Gateway every 2 seconds", func(ctx SpecContext) {
		setUp(ctx, proxyBlueprint("one", false, tenantsRollout))
		w.classAndBlueprint(ctx, proxyBlueprint("two", false, tenantsRollout))
		first := gatewayName(0)
		Eventually(w.configMap(ctx, first+"-config")).Should(WithTransform(configMapData("greeting"), Equal("two")))

		churn, stop := context.WithCancel(ctx)
		defer stop()
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			for i := 0; ; i++ {
				route := &gatewayv1.HTTPRoute{
					ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: fmt.Sprintf("churn-%03d", i)},
					Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{
						ParentRefs: []gatewayv1.ParentReference{{Name: gatewayv1.ObjectName(first)}},
					}},
				}
				if err := k8s.Create(churn, route); err != nil && churn.Err() == nil {
					Expect(err).NotTo(HaveOccurred())
				}
				select {
				case <-churn.Done():
					return
				case <-time.After(2 * time.Second):
				}
			}
		}()
		Eventually(w.rolloutStatus(ctx), "40s").Should(HaveField("Phase", gatewrightv1alpha1.RolloutComplete))
		stop()
		<-done
		Expect(w.rolloutStatus(ctx)().Failure).To(BeNil())
		Expect(w.blueprintStatus(ctx)().CurrentRevision).To(BeEquivalentTo(2))
	})

	It("rolls back a revision whose render fails for its first Gateway, and says which Gateway and the render's error", func(ctx SpecContext) {
		setUp(ctx, proxyBlueprint("one", false, tenantsRollout))
		w.classAndBlueprint(ctx, proxyBlueprint(`{{ required "the greeting of revision two is required" .Values.missing }}`, false, tenantsRollout))
		Eventually(w.gatewayCondition(ctx, gatewayName(0), "Programmed")).Should(HavePrefix("False/Invalid"))

		Eventually(w.rolloutStatus(ctx), "30s").Should(HaveField("Phase", gatewrightv1alpha1.RolloutRolledBack))
		failure := w.rolloutStatus(ctx)().Failure
		Expect(failure.Gateways).To(Equal([]string{w.namespace + "/" + gatewayName(0)}))
		Expect(failure.Message).To(And(ContainSubstring("does not render from revision 2"), ContainSubstring("the greeting of revision two is required")))
		Eventually(w.gatewayCondition(ctx, gatewayName(0), "Programmed")).Should(HavePrefix("True"))
		Expect(w.greetings(ctx)()).To(Equal(map[string]int{"one": fleetSize}))
	})
})
