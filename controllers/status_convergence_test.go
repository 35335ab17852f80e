package controllers_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// availableProxyBlueprint renders one Deployment per Gateway, of .Values.replicas.
const availableProxyBlueprint = `
values:
  default: {replicas: 1}
gatewayTemplate:
  resourceTemplates:
  - name: proxy
    template: |
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: {{ .Gateway.metadata.name }}-proxy}
      spec:
        replicas: {{ .Values.replicas }}
        selector: {matchLabels: {app: {{ .Gateway.metadata.name }}}}
        template:
          metadata: {labels: {app: {{ .Gateway.metadata.name }}}}
          spec: {containers: [{name: proxy, image: proxy}]}
`

// actAsDeploymentController reports the Deployments of namespace available, as the
// Deployment controller would once their pods are ready: as soon as it sees a new
// generation for a third of them, after a random delay of up to maxDelay for the rest,
// until ctx ends. Objects that turn ready at once, in the middle of the round that
// changed them, are what a status computed from a cache behind its own write missed.
func actAsDeploymentController(ctx context.Context, namespace string, maxDelay time.Duration) {
	watcher, err := client.NewWithWatch(cfg, client.Options{Scheme: k8s.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	events, err := watcher.Watch(ctx, &appsv1.DeploymentList{}, client.InNamespace(namespace))
	Expect(err).NotTo(HaveOccurred())
	go func() {
		defer GinkgoRecover()
		defer events.Stop()
		reported := map[string]int64{} // the generation last seen, by name
		for event := range events.ResultChan() {
			d, ok := event.Object.(*appsv1.Deployment)
			if !ok || d.Status.ObservedGeneration == d.Generation || reported[d.Name] == d.Generation {
				continue
			}
			reported[d.Name] = d.Generation
			namespace, name, generation := d.Namespace, d.Name, d.Generation
			if rand.IntN(3) == 0 {
				reportAvailable(ctx, namespace, name, generation)
				continue
			}
			time.AfterFunc(time.Duration(rand.Int64N(int64(maxDelay))), func() { reportAvailable(ctx, namespace, name, generation) })
		}
	}()
}

// reportAvailable writes the status of an available Deployment at generation, unless a
// newer generation has been written since.
func reportAvailable(ctx context.Context, namespace, name string, generation int64) {
	d := &appsv1.Deployment{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, d); err != nil || d.Generation != generation {
		return
	}
	replicas := ptr.Deref(d.Spec.Replicas, 1)
	now := metav1.Now()
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: generation, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: "True", Reason: "MinimumReplicasAvailable", LastUpdateTime: now, LastTransitionTime: now},
			{Type: appsv1.DeploymentProgressing, Status: "True", Reason: "NewReplicaSetAvailable", LastUpdateTime: now, LastTransitionTime: now},
		},
	}
	_ = k8s.Status().Update(ctx, d) // a conflict means a newer generation, reported in its turn
}

var _ = Describe("Status convergence", func() {
	It("brings every Gateway to Programmed once its objects are ready, whatever order readiness and changes come in", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, availableProxyBlueprint)
		simulation, stop := context.WithCancel(context.Background())
		DeferCleanup(stop)
		actAsDeploymentController(simulation, w.namespace, 300*time.Millisecond)
		gateways := []string{"a", "b", "c", "d"}
		for _, name := range gateways {
			w.gateway(ctx, name)
		}
		programmedWith := func(name string, replicas int32) func() string {
			return func() string {
				d := &appsv1.Deployment{}
				if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name + "-proxy"}, d); err != nil {
					return err.Error()
				}
				if got := ptr.Deref(d.Spec.Replicas, 0); got != replicas {
					return fmt.Sprintf("Deployment at %d replicas", got)
				}
				return w.gatewayCondition(ctx, name, "Programmed")()
			}
		}
		for round := range 8 {
			replicas := int32(round%3 + 2)
			By(fmt.Sprintf("round %d: the tenant sets %d replicas for every Gateway of the namespace", round, replicas))
			w.apply(ctx, fmt.Sprintf(`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: replicas, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  default: {replicas: %d}
`, replicas))
			for _, name := range gateways {
				Eventually(programmedWith(name, replicas)).WithTimeout(15*time.Second).Should(HavePrefix("True/"), "Gateway %s in round %d", name, round)
			}
		}
	})
})
