package hostile

import (
	"runtime"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/test/testenv"
)

// greetingBlueprint prints a tenant's greeting, which its valuesSchema bounds.
const greetingBlueprint = `
values:
  default: {greeting: hello}
valuesSchema:
  type: object
  properties:
    greeting: {type: string, maxLength: 64}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {greeting: {{ .Values.greeting | quote }}}
`

// maxConditionMessage is the longest condition message the API server stores
// (metav1.Condition's maxLength): a longer one fails the whole status write.
const maxConditionMessage = 32768

var _ = Describe("Tenant values that exhaust the controller", func() {
	It("refuses a 5,000-deep GatewayConfig with a message, within 200 MiB of heap", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")

		deep := map[string]any{}
		for range 5000 {
			deep = map[string]any{"a": deep}
		}
		peak := sampleHeap()
		// Created, not applied: server-side apply would track 5,000 levels of fields.
		config := gatewayConfig(alice.namespace, "Gateway", "web", deep)
		Expect(alice.Create(ctx, config)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(alice.Delete(ctx, config)).To(Succeed()) })

		refusal := MatchRegexp(`(?i)deep|depth|nest`)
		Eventually(alice.condition(ctx, "web", "Programmed")).WithTimeout(30 * time.Second).Should(And(HavePrefix("False/"), refusal))
		Eventually(func() ([]string, error) {
			config := &gatewrightv1alpha1.GatewayConfig{}
			err := alice.Get(ctx, client.ObjectKey{Namespace: alice.namespace, Name: "gateway-web"}, config)
			return testenv.Ancestors(config), err
		}).Should(ContainElement(And(MatchRegexp(`^Gateway/web \w+=False/`), refusal)))
		Expect(peak()).To(BeNumerically("<", 200<<20), "heap growth in bytes")
	})

	It("reports a value too long for the schema as Programmed=False, in a message the API server stores", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")

		alice.configure(ctx, "Gateway", "web", map[string]any{"greeting": strings.Repeat("x", 40000)})
		Eventually(alice.condition(ctx, "web", "Programmed")).Should(HavePrefix("False/Invalid: "))
		Expect(len(alice.condition(ctx, "web", "Programmed")())).To(BeNumerically("<=", maxConditionMessage+len("False/Invalid: ")))
		Eventually(func() ([]string, error) {
			config := &gatewrightv1alpha1.GatewayConfig{}
			err := alice.Get(ctx, client.ObjectKey{Namespace: alice.namespace, Name: "gateway-web"}, config)
			return testenv.Ancestors(config), err
		}).Should(ContainElement(HavePrefix("Gateway/web Enforced=False/")))
		Expect(alice.configMap(ctx, "web-config")()).To(HaveField("Data", HaveKeyWithValue("greeting", "hello")))
	})

	It("bounds renders, so that one namespace's loops cannot starve another namespace's Gateways", func(ctx SpecContext) {
		class := newClass(ctx, `
values:
  default: {outer: 1, inner: 1}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      {{- range $i := until (int .Values.outer) }}{{ range $j := until (int $.Values.inner) }}{{ end }}{{ end }}
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
`)
		alice := newTenant(ctx, "alice", "team-a")
		bob := newTenant(ctx, "bob", "team-b")
		// Nothing interrupts a render that runs: its workers would serve the specs that
		// follow only once it ends.
		DeferCleanup(restartController)
		// Each until is within its 10,000-element bound; nested, they loop 10^8 times.
		alice.configure(ctx, "Namespace", alice.namespace, map[string]any{"outer": 10000, "inner": 10000})
		heavy := []string{"loop-1", "loop-2", "loop-3", "loop-4"}
		for _, name := range heavy {
			alice.gateway(ctx, class, name)
		}
		bob.gateway(ctx, class, "web")

		Eventually(bob.condition(ctx, "web", "Programmed")).WithTimeout(time.Minute).Should(HavePrefix("True/Programmed"))
		// A Gateway rendered before the cache holds alice's values renders no loop and is
		// Programmed for a moment; what counts is where it converges. Were nothing to bound
		// a render, it would stay True and this would time out.
		for _, name := range heavy {
			Eventually(alice.condition(ctx, name, "Programmed")).WithTimeout(time.Minute).
				Should(MatchRegexp(`^False/Invalid: .*render exceeded`), "Gateway "+name+" rendered all 10^8 iterations: nothing bounds a render")
		}
	})
})

var _ = Describe("Status", func() {
	It("clears status.addresses when the blueprint stops reporting them", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint+`
  status:
    template: |
      addresses:
      - {type: Hostname, value: {{ printf "%s.example.com" .Gateway.metadata.name | quote }}}
`)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		addresses := func() ([]gatewayv1.GatewayStatusAddress, error) {
			gw, err := alice.getGateway(ctx, "web")
			return gw.Status.Addresses, err
		}
		Eventually(addresses).Should(ConsistOf(HaveField("Value", "web.example.com")))

		setBlueprint(ctx, class, greetingBlueprint)
		Eventually(addresses).Should(BeEmpty())
		alice.programmed(ctx, "web")
	})

	It("keeps a GatewayClass, and what its Gateways rendered, while Gateways use it", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")
		config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: alice.namespace, Name: "web-config"}}
		configUID, err := uidOf(ctx, config)()
		Expect(err).NotTo(HaveOccurred())

		gatewayClass := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: class}}
		Expect(admin.Delete(ctx, gatewayClass)).To(Succeed())
		Consistently(func() (*gatewayv1.GatewayClass, error) {
			err := admin.Get(ctx, client.ObjectKeyFromObject(gatewayClass), gatewayClass)
			return gatewayClass, err
		}).Should(SatisfyAll(
			HaveField("DeletionTimestamp", Not(BeNil())),
			HaveField("Finalizers", ContainElement(gatewayv1.GatewayClassFinalizerGatewaysExist))))
		Expect(uidOf(ctx, config)()).To(Equal(configUID))

		gw, err := alice.getGateway(ctx, "web")
		Expect(err).NotTo(HaveOccurred())
		Expect(alice.Delete(ctx, gw)).To(Succeed())
		Eventually(func() error { return admin.Get(ctx, client.ObjectKeyFromObject(gatewayClass), gatewayClass) }).Should(beNotFound())
	})

	It("stops accepting a Gateway whose blueprint is gone, and tears nothing down", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")
		config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: alice.namespace, Name: "web-config"}}
		configUID, err := uidOf(ctx, config)()
		Expect(err).NotTo(HaveOccurred())

		blueprint := &unstructured.Unstructured{}
		blueprint.SetAPIVersion("gatewright.dev/v1alpha1")
		blueprint.SetKind("GatewayClassBlueprint")
		blueprint.SetName(class)
		Expect(admin.Delete(ctx, blueprint)).To(Succeed())
		Eventually(alice.condition(ctx, "web", "Accepted")).Should(HavePrefix("False/"))
		Consistently(uidOf(ctx, config)).Should(Equal(configUID))
	})
})

// sampleHeap samples the heap in use until the returned function is called, which
// returns how far it grew above where it was, after a collection, at the start. The
// sampling ends with the spec at the latest.
func sampleHeap() func() uint64 {
	var stats runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&stats)
	baseline, peak := stats.HeapAlloc, stats.HeapAlloc
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				var now runtime.MemStats
				runtime.ReadMemStats(&now)
				peak = max(peak, now.HeapAlloc)
			}
		}
	}()
	end := sync.OnceFunc(func() {
		close(stop)
		<-stopped
	})
	DeferCleanup(end)
	return func() uint64 {
		end()
		return peak - baseline
	}
}
