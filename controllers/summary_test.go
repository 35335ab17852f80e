package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	kstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// health reads obj (kind, namespace, name) as kstatus does, and its summary conditions:
// "<kstatus> Ready=<status>/<reason>", then Reconciling and Stalled when present, or
// why the summary is not of the object's generation.
func health(ctx context.Context, kind, namespace, name string) func() string {
	return func() string {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion("gatewright.dev/v1alpha1")
		obj.SetKind(kind)
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj); err != nil {
			return err.Error()
		}
		res, err := kstatus.Compute(obj)
		if err != nil {
			return err.Error()
		}
		observed, _, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
		if observed != obj.GetGeneration() {
			return fmt.Sprintf("%s: observedGeneration %d of %d", res.Status, observed, obj.GetGeneration())
		}
		raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		var conditions []metav1.Condition
		for _, c := range raw {
			var condition metav1.Condition
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(c.(map[string]any), &condition); err != nil {
				return err.Error()
			}
			conditions = append(conditions, condition)
		}
		out := []string{string(res.Status)}
		for _, t := range []string{"Ready", "Reconciling", "Stalled"} {
			if c := meta.FindStatusCondition(conditions, t); c != nil {
				if c.ObservedGeneration != obj.GetGeneration() {
					return fmt.Sprintf("%s of generation %d", t, c.ObservedGeneration)
				}
				out = append(out, fmt.Sprintf("%s=%s/%s", t, c.Status, c.Reason))
			}
		}
		return strings.Join(out, " ")
	}
}

var _ = Describe("Summary conditions", func() {
	It("say a policy is Ready once judged, and Stalled when an ancestor refuses it, as kstatus reads them", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		w.gateway(ctx, "web")
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: tenant, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {greeting: tenant}
`)
		Eventually(health(ctx, "GatewayConfig", w.namespace, "tenant")).Should(Equal("Current Ready=True/Programmed"))

		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: tenant, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: somewhere-else}]
  default: {greeting: tenant}
`)
		Eventually(health(ctx, "GatewayConfig", w.namespace, "tenant")).Should(Equal("Failed Ready=False/Invalid Stalled=True/Invalid"))
	})

	It("say a blueprint is Ready once rolled out, Reconciling in a rollout's wave, and Stalled once it is rolled back", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, proxyBlueprint("one", false, fastRollout))
		// Two: the first wave takes one, and a wave that takes every Gateway makes its
		// revision current before its gate passes.
		w.gateway(ctx, gatewayName(0))
		w.gateway(ctx, gatewayName(1))
		Eventually(health(ctx, "GatewayClassBlueprint", "", w.blueprint)).Should(Equal("Current Ready=True/RolledOut"))

		// The Deployment never becomes available without a kube-controller-manager.
		w.classAndBlueprint(ctx, proxyBlueprint("two", true, fastRollout))
		Eventually(health(ctx, "GatewayClassBlueprint", "", w.blueprint)).Should(Equal("InProgress Ready=False/RolloutProgressing Reconciling=True/RolloutProgressing"))
		Eventually(health(ctx, "GatewayClassBlueprint", "", w.blueprint), "30s").Should(Equal("Failed Ready=False/RolledBack Stalled=True/RolledBack"))
	})

	It("say a class-wide GatewayClassConfig is Reconciling while its change rides a rollout, and Stalled once that is rolled back", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.apply(ctx, fleetConfig("{greeting: one, ports: [80]}", ""))
		// Creation times count seconds: the config is to be older than the first revision.
		time.Sleep(time.Second)
		w.classAndBlueprint(ctx, portsBlueprint)
		w.gateway(ctx, gatewayName(0))
		w.gateway(ctx, gatewayName(1))
		config := w.class + "-fleet"
		Eventually(health(ctx, "GatewayClassConfig", controllerNamespace, config)).Should(Equal("Current Ready=True/Programmed"))
		// The config rides once the revision both Gateways run holds it: the blueprint may
		// make its first revision before the cache has its class, and take the config in
		// with the next, current at once.
		Eventually(w.runHeld(ctx, config, gatewayName(0), gatewayName(1)), "30s").Should(BeTrue())

		// ports as a string: the template cannot range over it.
		w.apply(ctx, fleetConfig(`{greeting: two, ports: "80"}`, ""))
		// The rollout's first wave waits on the Gateways' health: on a loaded machine the
		// revision takes longer than the default wait to be made and assigned.
		Eventually(health(ctx, "GatewayClassConfig", controllerNamespace, config), "30s").Should(Equal("InProgress Ready=False/RolloutProgressing Reconciling=True/RolloutProgressing"))
		Eventually(health(ctx, "GatewayClassConfig", controllerNamespace, config), "30s").Should(Equal("Failed Ready=False/RolledBack Stalled=True/RolledBack"))
	})
})
