package hostile

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// These attacks were already held off before the Rendering records; they stay cheap.
var _ = Describe("A tenant escaping its namespace", func() {
	It("has template syntax and YAML in its values printed as data", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		injection := "{{ fail \"pwned\" }}\n---\nkind: Secret\nmetadata: {name: x}"
		alice.configure(ctx, "Gateway", "web", map[string]any{"greeting": injection})
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")
		// The first round may render before the cache has Alice's GatewayConfig.
		Eventually(alice.configMap(ctx, "web-config")).Should(HaveField("Data", Equal(map[string]string{"greeting": injection})))
	})

	It("cannot make Gatewright write into another namespace", func(ctx SpecContext) {
		class := newClass(ctx, `
values:
  default: {namespace: ""}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: {{ .Gateway.metadata.name }}-config
        {{- with .Values.namespace }}
        namespace: {{ . | quote }}
        {{- end }}
`)
		alice := newTenant(ctx, "alice", "team-a")
		bob := newTenant(ctx, "bob", "team-b")
		alice.configure(ctx, "Gateway", "web", map[string]any{"namespace": bob.namespace})
		alice.gateway(ctx, class, "web")
		Eventually(alice.condition(ctx, "web", "Programmed")).Should(And(
			HavePrefix("False/Invalid: "), ContainSubstring("must be in namespace "+alice.namespace)))
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: bob.namespace, Name: "web-config"}, &corev1.ConfigMap{})).To(beNotFound())
	})

	It("cannot inject a cluster-scoped kind the blueprint does not list; listed ones are rendered and cleaned up", func(ctx SpecContext) {
		// The blueprint prints the hostname unquoted, as docs/security.md warns against.
		class := newClass(ctx, `
values:
  default: {hostname: example.com}
clusterScopedKinds: [{kind: Namespace}]
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data:
        hostname: {{ .Values.hostname }}
  - name: namespace
    template: |
      apiVersion: v1
      kind: Namespace
      metadata: {name: {{ printf "%s-%s" .Gateway.metadata.namespace .Gateway.metadata.name }}}
`)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")
		rendered := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: alice.namespace + "-web"}}
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(rendered), rendered)).To(Succeed())
		Expect(rendered.Labels).To(HaveKeyWithValue(labelGatewayNamespace, alice.namespace))

		binding := "pwn-" + rand.String(6)
		alice.configure(ctx, "Gateway", "web", map[string]any{"hostname": "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n" +
			"metadata: {name: " + binding + "}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\n" +
			"subjects: [{kind: Group, name: system:authenticated}]"})
		Eventually(alice.condition(ctx, "web", "Programmed")).Should(And(
			HavePrefix("False/Invalid: "), ContainSubstring("is cluster-scoped and not in the blueprint's clusterScopedKinds")))
		Expect(admin.Get(ctx, client.ObjectKey{Name: binding}, &rbacv1.ClusterRoleBinding{})).To(beNotFound())

		gw, err := alice.getGateway(ctx, "web")
		Expect(err).NotTo(HaveOccurred())
		Expect(alice.Delete(ctx, gw)).To(Succeed())
		// envtest runs no namespace controller: a deleted Namespace stays Terminating.
		Eventually(func() (*metav1.Time, error) {
			err := admin.Get(ctx, client.ObjectKeyFromObject(rendered), rendered)
			return rendered.DeletionTimestamp, client.IgnoreNotFound(err)
		}).ShouldNot(BeNil())
	})

	It("cannot hand Gatewright an object of its own by creating it under a rendered name", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: alice.namespace, Name: "web-config"}, Data: map[string]string{"mine": "yes"}}
		Expect(alice.Create(ctx, mine)).To(Succeed())
		alice.gateway(ctx, class, "web")
		Eventually(alice.condition(ctx, "web", "Programmed")).Should(MatchRegexp(
			`^False/Invalid: apply failed, nothing was pruned: ConfigMap \S+/web-config exists and is not managed by Gatewright`))
		after := &corev1.ConfigMap{}
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(mine), after)).To(Succeed())
		Expect(after.UID).To(Equal(mine.UID))
		Expect(after.Data).To(Equal(map[string]string{"mine": "yes"}))
		Expect(after.Labels).NotTo(HaveKey(labelManagedBy))
	})

	It("has its edits to a rendered object corrected", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")
		config, err := alice.configMap(ctx, "web-config")()
		Expect(err).NotTo(HaveOccurred())
		config.Data["greeting"] = "tampered"
		Expect(alice.Update(ctx, config)).To(Succeed())
		Eventually(alice.configMap(ctx, "web-config")).Should(HaveField("Data", HaveKeyWithValue("greeting", "hello")))
	})
})
