package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/controllers"
	"github.com/gatewright/gatewright/test/testenv"
)

// manyObjectsBlueprint renders eight ConfigMaps per Gateway: each reconcile waits on
// the API server for a while, as a large blueprint's do.
const manyObjectsBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      {{- range $i := until 8 }}
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ $.Gateway.metadata.name }}-{{ $i }}}
      {{- end }}
`

// backlog is how many Gateways the busy namespace asks for at once.
const backlog = 120

var _ = Describe("Fair sharing of the workers", func() {
	It("gives a namespace alone more than half the workers, and another namespace's change a worker while the first's backlog waits", func(ctx SpecContext) {
		busy := newWorld(ctx)
		for i := range backlog {
			busy.gateway(ctx, fmt.Sprintf("gw-%d", i))
		}
		peak := peakOf(ctx, metric("controller_runtime_active_workers", "controller", "gateway"))
		// The class comes last: its creation asks for every Gateway of the namespace at once.
		busy.classAndBlueprint(ctx, manyObjectsBlueprint)
		Eventually(peak).Should(BeNumerically(">", controllers.DefaultGatewayWorkers/2),
			"one namespace alone holds at most half of the Gateway workers")

		other := world{namespace: "ns-" + rand.String(6), class: busy.class, blueprint: busy.blueprint}
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other.namespace}})).To(Succeed())
		other.gateway(ctx, "web")
		Eventually(other.gatewayCondition(ctx, "web", "Programmed")).WithTimeout(time.Minute).Should(HavePrefix("True/Programmed"))
		Expect(programmed(ctx, busy)).To(BeNumerically("<", backlog/2),
			"the other namespace's Gateway waited behind most of the busy namespace's backlog")
		Eventually(func() int { return programmed(ctx, busy) }).WithTimeout(3 * time.Minute).Should(Equal(backlog))
	})
})

// peakOf samples gauge until the spec ends, and returns the highest value seen so far.
func peakOf(ctx context.Context, gauge func() float64) func() float64 {
	var peak atomic.Int64
	go func() {
		defer GinkgoRecover()
		for ctx.Err() == nil {
			if v := int64(gauge()); v > peak.Load() {
				peak.Store(v)
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return func() float64 { return float64(peak.Load()) }
}

// programmed counts the world's Gateways that say Programmed=True.
func programmed(ctx context.Context, w world) int {
	var gateways gatewayv1.GatewayList
	Expect(k8s.List(ctx, &gateways, client.InNamespace(w.namespace))).To(Succeed())
	n := 0
	for _, gw := range gateways.Items {
		if strings.HasPrefix(testenv.Condition(gw.Status.Conditions, "Programmed", gw.Generation), "True/") {
			n++
		}
	}
	return n
}
