package hostile

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/test/testenv"
)

// The second hostile round: every bound held one item at a time, and these attacks
// added items up, or made one item cost far more than it was charged.
var _ = Describe("Tenant input bounded in sum", func() {
	It("stops a condition that compares nested lists by what it walks, applies its block, and lets another tenant's change through", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		bob := newTenant(ctx, "bob", "team-b")
		bob.gateway(ctx, class, "web")
		bob.programmed(ctx, "web")

		// Each list is within the bounds of its block; comparing them element by element
		// for every element is 10^8 comparisons, which CEL used to charge as 10^4 units.
		zeros := make([]any, 9000)
		for i := range zeros {
			zeros[i] = 0
		}
		Expect(alice.Create(ctx, policyObject(alice.namespace, "lists-a", "Namespace", alice.namespace, map[string]any{
			"default": map[string]any{"a": []any{zeros}},
		}))).To(Succeed())
		Expect(alice.Create(ctx, policyObject(alice.namespace, "lists-b", "Namespace", alice.namespace, map[string]any{
			"default": map[string]any{"b": []any{zeros}},
		}))).To(Succeed())
		Expect(alice.Create(ctx, policyObject(alice.namespace, "compare", "Namespace", alice.namespace, map[string]any{
			"override": map[string]any{
				"values": map[string]any{"greeting": "compared"},
				"when":   "self.a[0].all(i, self.a == self.b)",
			},
		}))).To(Succeed())
		cpu := cpuSeconds()
		heavy := []string{"cmp-1", "cmp-2", "cmp-3", "cmp-4", "cmp-5", "cmp-6", "cmp-7", "cmp-8"}
		for _, name := range heavy {
			alice.gateway(ctx, class, name)
		}

		bob.configure(ctx, "Gateway", "web", map[string]any{"greeting": "still here"})
		Eventually(bob.configMap(ctx, "web-config")).WithTimeout(30*time.Second).Should(
			HaveField("Data", HaveKeyWithValue("greeting", "still here")), "another tenant's change")
		// A condition stopped by a bound fails closed: its block applies.
		for _, name := range heavy {
			Eventually(alice.configMap(ctx, name+"-config")).WithTimeout(time.Minute).Should(
				HaveField("Data", HaveKeyWithValue("greeting", "compared")), "Gateway %s", name)
		}
		Eventually(policyAncestors(ctx, alice, "compare")).Should(ContainElement(MatchRegexp(`(?i)Enforced=\w+/\w+: .*when.*(cost|limit|budget)`)))
		Expect(cpu()).To(BeNumerically("<", 30), "CPU seconds of the test process, the controller included")
	})

	It("refuses 40 GatewayConfigs of 170,000 empty objects before decoding them, within 200 MiB of heap", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")

		empties := make([]any, 170000)
		for i := range empties {
			empties[i] = map[string]any{}
		}
		peak := sampleHeap()
		for i := range 40 {
			config := policyObject(alice.namespace, fmt.Sprintf("empties-%02d", i), "Namespace", alice.namespace, map[string]any{
				"default": map[string]any{"items": empties},
			})
			Expect(alice.Create(ctx, config)).To(Succeed())
		}
		refusal := MatchRegexp(`(?i)more than 10000 elements`)
		Eventually(alice.condition(ctx, "web", "Programmed")).WithTimeout(time.Minute).Should(And(HavePrefix("False/"), refusal))
		Eventually(policyAncestors(ctx, alice, "empties-00")).WithTimeout(time.Minute).Should(ContainElement(And(MatchRegexp(`=False/`), refusal)))
		Expect(peak()).To(BeNumerically("<", 200<<20), "heap growth in bytes")
	})

	It("refuses values within every bound one by one but not together, naming the policies that add up", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")

		items := make([]any, 9000)
		for i := range items {
			items[i] = i
		}
		peak := sampleHeap()
		for i := range 40 {
			Expect(alice.Create(ctx, policyObject(alice.namespace, fmt.Sprintf("part-%02d", i), "Namespace", alice.namespace, map[string]any{
				"default": map[string]any{fmt.Sprintf("items%02d", i): items},
			}))).To(Succeed())
		}
		together := MatchRegexp(`(?i)together.*GatewayConfig ` + alice.namespace + `/part-\d\d`)
		Eventually(alice.condition(ctx, "web", "Programmed")).WithTimeout(time.Minute).Should(And(HavePrefix("False/"), together))
		// The largest contributors are Invalid; every other policy of the chain says why it
		// is not in effect.
		Eventually(policyAncestors(ctx, alice, "part-00")).WithTimeout(time.Minute).Should(ContainElement(MatchRegexp(`Accepted=False/Invalid: .*together`)))
		Eventually(policyAncestors(ctx, alice, "part-39")).WithTimeout(time.Minute).Should(ContainElement(MatchRegexp(`Enforced=False/Pending: not in effect.*together`)))
		// What was applied before stays.
		Expect(alice.configMap(ctx, "web-config")()).To(HaveField("Data", HaveKeyWithValue("greeting", "hello")))
		Expect(peak()).To(BeNumerically("<", 200<<20), "heap growth in bytes")
	})

	It("refuses an indent of 80,000,000 before building it, within 200 MiB of heap", func(ctx SpecContext) {
		class := newClass(ctx, `
values:
  default: {indent: 2}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data:
        text: {{ "x" | nindent (int .Values.indent) | quote }}
`)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")

		peak := sampleHeap()
		alice.configure(ctx, "Gateway", "web", map[string]any{"indent": 80000000})
		Eventually(alice.condition(ctx, "web", "Programmed")).WithTimeout(time.Minute).Should(MatchRegexp(`^False/Invalid: .*nindent.*budget`))
		Expect(peak()).To(BeNumerically("<", 200<<20), "heap growth in bytes")
	})

	It("keeps another tenant's policy status current while one tenant's 400 conditions are judged", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		bob := newTenant(ctx, "bob", "team-b")
		alice.gateway(ctx, class, "web")
		bob.gateway(ctx, class, "web")
		bob.configure(ctx, "Gateway", "web", map[string]any{"greeting": "one"})
		bob.programmed(ctx, "web")

		hosts := make([]any, 1500)
		for i := range hosts {
			hosts[i] = fmt.Sprintf("host-%d.example.com", i)
		}
		Expect(alice.Create(ctx, policyObject(alice.namespace, "hosts", "Namespace", alice.namespace, map[string]any{
			"default": map[string]any{"hosts": hosts},
		}))).To(Succeed())
		for i := range 400 {
			Expect(alice.Create(ctx, policyObject(alice.namespace, fmt.Sprintf("cond-%03d", i), "Namespace", alice.namespace, map[string]any{
				"override": map[string]any{
					"values": map[string]any{fmt.Sprintf("c%03d", i): true},
					"when":   fmt.Sprintf(`self.hosts.exists(h, h.endsWith(".example.org%d"))`, i),
				},
			}))).To(Succeed())
		}

		bob.configure(ctx, "Gateway", "web", map[string]any{"greeting": "two"})
		Eventually(func() (int64, error) {
			config := &gatewrightv1alpha1.GatewayConfig{}
			if err := bob.Get(ctx, client.ObjectKey{Namespace: bob.namespace, Name: "gateway-web"}, config); err != nil {
				return 0, err
			}
			for _, ancestor := range config.Status.Ancestors {
				for _, condition := range ancestor.Conditions {
					if condition.Type == "Enforced" && condition.ObservedGeneration == config.Generation {
						return condition.ObservedGeneration, nil
					}
				}
			}
			return 0, nil
		}).WithTimeout(30 * time.Second).ShouldNot(BeZero())
	})

	It("keeps a Gateway's infrastructure labels and annotations off objects rendered in another tenant's namespace", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint+`
httpRouteTemplate:
  resourceTemplates:
  - name: route-config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-on-{{ .Gateway.metadata.name }}}
`)
		alice := newTenant(ctx, "alice", "team-a")
		bob := newTenant(ctx, "bob", "team-b")
		alice.apply(ctx, class, gatewayManifest("web", nil)+`
  infrastructure:
    labels: {argocd.argoproj.io/instance: alice-app}
    annotations: {external-dns.alpha.kubernetes.io/hostname: bob.example.com}
`)
		alice.programmed(ctx, "web")
		bob.apply(ctx, class, strings.Replace(routeManifest("shop", "web", nil), "{name: web}", "{name: web, namespace: "+alice.namespace+"}", 1))

		Eventually(bob.configMap(ctx, "shop-on-web")).Should(HaveField("ObjectMeta.Labels", HaveKey(labelManagedBy)))
		onBobs, err := bob.configMap(ctx, "shop-on-web")()
		Expect(err).NotTo(HaveOccurred())
		Expect(onBobs.Labels).NotTo(HaveKey("argocd.argoproj.io/instance"))
		Expect(onBobs.Annotations).NotTo(HaveKey("external-dns.alpha.kubernetes.io/hostname"))
		onAlices, err := alice.configMap(ctx, "web-config")()
		Expect(err).NotTo(HaveOccurred())
		Expect(onAlices.Labels).To(HaveKeyWithValue("argocd.argoproj.io/instance", "alice-app"))
		Expect(onAlices.Annotations).To(HaveKeyWithValue("external-dns.alpha.kubernetes.io/hostname", "bob.example.com"))
	})

	It("serves a Gateway refused for a name it does not own once that object is gone, without a change of its own", func(ctx SpecContext) {
		class := newClass(ctx, `
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: shared-config}
`)
		alice := newTenant(ctx, "alice", "team-a")
		mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: alice.namespace, Name: "shared-config"}}
		Expect(alice.Create(ctx, mine)).To(Succeed())
		alice.gateway(ctx, class, "first")
		Eventually(alice.condition(ctx, "first", "Programmed")).Should(MatchRegexp(`^False/Invalid: .*shared-config exists and is not managed by Gatewright`))

		// A tenant's own object goes away.
		Expect(alice.Delete(ctx, mine)).To(Succeed())
		Eventually(alice.condition(ctx, "first", "Programmed")).WithTimeout(time.Minute).Should(HavePrefix("True/Programmed"))

		// Another Gateway's object goes away.
		alice.gateway(ctx, class, "second")
		Eventually(alice.condition(ctx, "second", "Programmed")).Should(MatchRegexp(`^False/Invalid: .*shared-config exists and is not managed by Gatewright`))
		Expect(alice.Delete(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
			"metadata": map[string]any{"namespace": alice.namespace, "name": "first"},
		}})).To(Succeed())
		Eventually(alice.condition(ctx, "second", "Programmed")).WithTimeout(time.Minute).Should(HavePrefix("True/Programmed"))
	})
})

// policyObject is a tenant's GatewayConfig in namespace named name, targeting one
// object, with the given spec fields besides targetRefs.
func policyObject(namespace, name, targetKind, targetName string, fields map[string]any) *unstructured.Unstructured {
	group := "gateway.networking.k8s.io"
	if targetKind == "Namespace" {
		group = ""
	}
	spec := map[string]any{"targetRefs": []any{map[string]any{"group": group, "kind": targetKind, "name": targetName}}}
	for k, v := range fields {
		spec[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gatewright.dev/v1alpha1",
		"kind":       "GatewayConfig",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       spec,
	}}
}

// policyAncestors lists a GatewayConfig's ancestor conditions as the tenant reads them.
func policyAncestors(ctx SpecContext, t *tenant, name string) func() ([]string, error) {
	return func() ([]string, error) {
		config := &gatewrightv1alpha1.GatewayConfig{}
		err := t.Get(ctx, client.ObjectKey{Namespace: t.namespace, Name: name}, config)
		return testenv.Ancestors(config), err
	}
}

// cpuSeconds returns a function telling how many CPU seconds the test process, the
// controller included, has spent since cpuSeconds was called.
func cpuSeconds() func() float64 {
	used := func() float64 {
		var usage syscall.Rusage
		Expect(syscall.Getrusage(syscall.RUSAGE_SELF, &usage)).To(Succeed())
		return time.Duration(usage.Utime.Nano() + usage.Stime.Nano()).Seconds()
	}
	start := used()
	return func() float64 { return used() - start }
}
