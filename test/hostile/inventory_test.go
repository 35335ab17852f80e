package hostile

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// recordingBlueprint renders a ConfigMap per Gateway with the tenant's note, a second
// one that copies what the templates see in .Resources.config (so that the specs can
// tell what Gatewright read back; without dependsOn, so that it does so in every round),
// and a ConfigMap per route and parent Gateway.
const recordingBlueprint = `
values:
  default: {note: ""}
gatewayTemplate:
  resourceTemplates:
  - name: config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-config}
      data: {note: {{ .Values.note | quote }}}
  - name: seen
    template: |
      {{- $seen := list }}
      {{- range .Resources.config }}
      {{- $seen = append $seen (printf "%s %s/%s %s" .kind .metadata.namespace .metadata.name (toJson (dig "data" dict .))) }}
      {{- end }}
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-seen}
      data: {config: {{ join "\n" $seen | quote }}}
httpRouteTemplate:
  resourceTemplates:
  - name: route-config
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-on-{{ .Gateway.metadata.name }}}
      data: {route: {{ .HTTPRoute.metadata.name | quote }}}
`

var _ = Describe("A tenant forging Gatewright's inventory", func() {
	var class string
	BeforeEach(func(ctx SpecContext) {
		class = newClass(ctx, recordingBlueprint)
	})

	It("cannot wedge the controller with Secret entries in the old annotations, nor get the Secret read or deleted", func(ctx SpecContext) {
		alice := newTenant(ctx, "alice", "team-a")
		bob := newTenant(ctx, "bob", "team-b")
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "forged", Namespace: alice.namespace},
			StringData: map[string]string{"token": "s3cret"},
		}
		Expect(alice.Create(ctx, secret)).To(Succeed())
		// A wedged instance would fail the specs that follow for this one's reason.
		DeferCleanup(restartController)

		// Four Gateways fill the Gateway workers of today's controller, and the route
		// one of the route workers.
		gateways := []string{"web-1", "web-2", "web-3", "web-4"}
		forged := "[" + inventoryEntry("Secret", alice.namespace, "forged", "config") + "]"
		for _, name := range gateways {
			alice.apply(ctx, class, gatewayManifest(name, map[string]string{inventoryAnnotation: forged}))
		}
		forgedRoute := fmt.Sprintf(`{"%s/web-1":[%s]}`, alice.namespace, inventoryEntry("Secret", alice.namespace, "forged", "route-config"))
		alice.apply(ctx, class, routeManifest("shop", "web-1", map[string]string{routeInventoryAnnotation: forgedRoute}))

		bob.gateway(ctx, class, "web")
		bob.programmed(ctx, "web")

		for _, name := range gateways {
			alice.programmed(ctx, name)
			Eventually(alice.configMap(ctx, name+"-seen")).Should(HaveField("Data", HaveKeyWithValue("config", Not(ContainSubstring("forged")))))
			Eventually(func() (map[string]string, error) {
				gw, err := alice.getGateway(ctx, name)
				return gw.Annotations, err
			}).Should(Not(HaveKey(inventoryAnnotation)), "the old annotation is read once, then removed")
		}
		Eventually(alice.configMap(ctx, "shop-on-web-1")).Should(HaveField("Data", HaveKeyWithValue("route", "shop")))
		Eventually(func() (map[string]string, error) {
			route := &gatewayv1.HTTPRoute{}
			err := alice.Get(ctx, client.ObjectKey{Namespace: alice.namespace, Name: "shop"}, route)
			return route.Annotations, err
		}).Should(Not(HaveKey(routeInventoryAnnotation)))

		after := &corev1.Secret{}
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(secret), after)).To(Succeed())
		Expect(after.UID).To(Equal(secret.UID))
		Expect(after.Data).To(Equal(map[string][]byte{"token": []byte("s3cret")}))
		Expect(after.Labels).NotTo(HaveKey(labelManagedBy))
	})

	It("cannot make templates read another tenant's objects, nor make Gatewright delete them", func(ctx SpecContext) {
		alice := newTenant(ctx, "alice", "team-a")
		bob := newTenant(ctx, "bob", "team-b")
		bob.configure(ctx, "Gateway", "shop", map[string]any{"note": "bob-private-note"})
		bob.gateway(ctx, class, "shop")
		bob.programmed(ctx, "shop")
		bobConfig := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: bob.namespace, Name: "shop-config"}}
		bobUID, err := uidOf(ctx, bobConfig)()
		Expect(err).NotTo(HaveOccurred())
		// A leak may last one round only: every version of what Alice's templates saw
		// counts, as kubectl get --watch shows them.
		versions := watchConfigMaps(ctx, alice.namespace)

		// Alice names her Gateway like Bob's, so that only the namespace label differs.
		stolen := "[" + inventoryEntry("ConfigMap", bob.namespace, "shop-config", "config") + "," +
			inventoryEntry("ConfigMap", bob.namespace, "shop-seen", "seen") + "]"
		alice.apply(ctx, class, gatewayManifest("shop", map[string]string{inventoryAnnotation: stolen}))
		alice.programmed(ctx, "shop")
		// .Resources holds what the previous round applied: the round after the first one
		// shows Alice's own ConfigMap.
		Eventually(alice.configMap(ctx, "shop-seen")).Should(HaveField("Data", HaveKeyWithValue("config", ContainSubstring(alice.namespace+"/shop-config"))))
		seesNothingOfBob := HaveEach(HaveKeyWithValue("config", SatisfyAll(
			Not(ContainSubstring(bob.namespace)),
			Not(ContainSubstring("bob-private-note")))))
		Expect(versions("shop-seen")).To(seesNothingOfBob)

		By("writing the annotation again after the migration, and changing the Gateway so that it renders again")
		gw, err := alice.getGateway(ctx, "shop")
		Expect(err).NotTo(HaveOccurred())
		original := gw.DeepCopy()
		if gw.Annotations == nil {
			gw.Annotations = map[string]string{}
		}
		gw.Annotations[inventoryAnnotation] = stolen
		gw.Spec.Infrastructure = &gatewayv1.GatewayInfrastructure{Labels: map[gatewayv1.LabelKey]gatewayv1.LabelValue{"round": "two"}}
		Expect(alice.Patch(ctx, gw, client.MergeFrom(original))).To(Succeed())
		Eventually(alice.configMap(ctx, "shop-seen")).Should(HaveField("Labels", HaveKeyWithValue("round", "two")))
		alice.programmed(ctx, "shop")
		Expect(versions("shop-seen")).To(seesNothingOfBob)

		By("deleting her Gateway")
		Expect(alice.Delete(ctx, gw)).To(Succeed())
		Eventually(func() error { _, err := alice.getGateway(ctx, "shop"); return err }).Should(beNotFound())
		Expect(uidOf(ctx, bobConfig)()).To(Equal(bobUID))
		Expect(bobConfig.Data).To(Equal(map[string]string{"note": "bob-private-note"}))
		bob.programmed(ctx, "shop")
	})
})

// chainedBlueprint renders a second ConfigMap only once the first exists, from the
// first one's live UID: it finishes only if Gatewright still knows what it applied.
const chainedBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: base
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-base}
      data: {role: base}
  - name: derived
    dependsOn: [base]
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-derived}
      data:
        base: {{ (index .Resources.base 0).metadata.uid | quote }}
        port: {{ (index .Gateway.spec.listeners 0).port | quote }}
`

var _ = Describe("Losing the inventory", func() {
	It("survives kubectl replace of a Gateway: nothing is deleted and a dependsOn chain still finishes", func(ctx SpecContext) {
		class := newClass(ctx, chainedBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.programmed(ctx, "web")
		base := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: alice.namespace, Name: "web-base"}}
		derived := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: alice.namespace, Name: "web-derived"}}
		baseUID, err := uidOf(ctx, base)()
		Expect(err).NotTo(HaveOccurred())
		derivedUID, err := uidOf(ctx, derived)()
		Expect(err).NotTo(HaveOccurred())

		// kubectl replace sends the file as it is: no annotations, no finalizers, only the
		// name, the spec (here with another port) and the resourceVersion it read.
		live, err := alice.getGateway(ctx, "web")
		Expect(err).NotTo(HaveOccurred())
		replacement := &gatewayv1.Gateway{
			ObjectMeta: metav1.ObjectMeta{Namespace: alice.namespace, Name: "web", ResourceVersion: live.ResourceVersion},
			Spec:       *live.Spec.DeepCopy(),
		}
		replacement.Spec.Listeners[0].Port = 8080
		Expect(alice.Update(ctx, replacement)).To(Succeed())

		Eventually(alice.configMap(ctx, "web-derived")).Should(HaveField("Data", Equal(map[string]string{"base": string(baseUID), "port": "8080"})))
		alice.programmed(ctx, "web")
		Expect(uidOf(ctx, base)()).To(Equal(baseUID))
		Expect(uidOf(ctx, derived)()).To(Equal(derivedUID))
		Expect(renderedFor(ctx, alice.namespace, alice.namespace, "web")()).To(Equal([]string{"web-base", "web-derived"}))
	})

	It("is kept in Rendering records that tenants may read but not change", func(ctx SpecContext) {
		class := newClass(ctx, recordingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		alice.apply(ctx, class, routeManifest("shop", "web", nil))
		alice.programmed(ctx, "web")
		Eventually(alice.configMap(ctx, "shop-on-web")).Should(Not(BeNil()))
		gw, err := alice.getGateway(ctx, "web")
		Expect(err).NotTo(HaveOccurred())
		route := &gatewayv1.HTTPRoute{}
		Expect(alice.Get(ctx, client.ObjectKey{Namespace: alice.namespace, Name: "shop"}, route)).To(Succeed())
		Expect(gw.Finalizers).NotTo(ContainElement(cleanupFinalizer))
		Expect(route.Finalizers).NotTo(ContainElement(cleanupFinalizer))

		gatewayLabels := map[string]string{labelGatewayName: "web", labelGatewayNamespace: alice.namespace}
		entry := func(name, template string) OmegaMatcher {
			return And(HaveKeyWithValue("kind", "ConfigMap"), HaveKeyWithValue("namespace", alice.namespace),
				HaveKeyWithValue("name", name), HaveKeyWithValue("template", template))
		}
		gatewayRecord := And(
			HaveKeyWithValue("owner", And(HaveKeyWithValue("kind", "Gateway"), HaveKeyWithValue("name", "web"), HaveKeyWithValue("uid", string(gw.UID)))),
			HaveKeyWithValue("objects", ContainElements(entry("web-config", "config"), entry("web-seen", "seen"))))
		routeRecord := And(
			HaveKeyWithValue("owner", And(HaveKeyWithValue("kind", "HTTPRoute"), HaveKeyWithValue("name", "shop"), HaveKeyWithValue("uid", string(route.UID)))),
			HaveKeyWithValue("objects", ContainElement(entry("shop-on-web", "route-config"))))
		var records []unstructured.Unstructured
		Eventually(func(g Gomega) {
			records, err = renderings(ctx, alice, alice.namespace, gatewayLabels)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(records).To(ConsistOf(HaveField("Object", gatewayRecord), HaveField("Object", routeRecord)))
		}).Should(Succeed())
		routeRecords, err := renderings(ctx, alice, alice.namespace, map[string]string{labelHTTPRouteName: "shop", labelHTTPRouteNamespace: alice.namespace})
		Expect(err).NotTo(HaveOccurred())
		Expect(routeRecords).To(ConsistOf(HaveField("Object", routeRecord)))

		forged := &unstructured.Unstructured{}
		forged.SetAPIVersion(renderingAPIVersion)
		forged.SetKind("Rendering")
		forged.SetNamespace(alice.namespace)
		forged.SetName("forged")
		forged.SetLabels(gatewayLabels)
		Expect(alice.Create(ctx, forged)).To(beForbidden())
		for _, record := range records {
			Expect(record.GetFinalizers()).To(ContainElement(cleanupFinalizer))
			emptied := record.DeepCopy()
			emptied.SetFinalizers(nil)
			Expect(unstructured.SetNestedSlice(emptied.Object, []any{}, "objects")).To(Succeed())
			Expect(alice.Update(ctx, emptied)).To(beForbidden())
			Expect(alice.Patch(ctx, record.DeepCopy(), client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)))).To(beForbidden())
			Expect(alice.Delete(ctx, record.DeepCopy())).To(beForbidden())
		}
		By("attaching a route from another namespace, whose record lives with the route")
		bob := newTenant(ctx, "bob", "team-b")
		bob.apply(ctx, class, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: NAMESPACE}
spec:
  parentRefs: [{name: web, namespace: `+alice.namespace+`}]
  rules: [{backendRefs: [{name: app, port: 8080}]}]
`)
		Eventually(func() ([]unstructured.Unstructured, error) {
			return renderings(ctx, bob, bob.namespace, map[string]string{
				labelHTTPRouteName: "cart", labelHTTPRouteNamespace: bob.namespace, labelGatewayName: "web", labelGatewayNamespace: alice.namespace,
			})
		}).Should(ConsistOf(HaveField("Object", HaveKeyWithValue("objects", ContainElement(And(
			HaveKeyWithValue("namespace", bob.namespace), HaveKeyWithValue("name", "cart-on-web")))))))

		after, err := renderings(ctx, admin, alice.namespace, gatewayLabels)
		Expect(err).NotTo(HaveOccurred())
		Expect(after).To(HaveEach(HaveField("Object", HaveKeyWithValue("metadata", HaveKeyWithValue("finalizers", ContainElement(cleanupFinalizer))))))
	})

	It("prunes 1,490 of 1,500 rendered objects when a tenant's count drops to 10", func(ctx SpecContext) {
		class := newClass(ctx, `
values:
  default: {count: 1}
gatewayTemplate:
  resourceTemplates:
  - name: many
    template: |
      {{- range $i := until (int .Values.count) }}
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ printf "%s-%04d" $.Gateway.metadata.name $i }}}
      {{- end }}
`)
		alice := newTenant(ctx, "alice", "team-a")
		alice.configure(ctx, "Gateway", "web", map[string]any{"count": 1500})
		alice.gateway(ctx, class, "web")
		rendered := renderedFor(ctx, alice.namespace, alice.namespace, "web")
		Eventually(rendered).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(HaveLen(1500))
		alice.programmed(ctx, "web")

		alice.configure(ctx, "Gateway", "web", map[string]any{"count": 10})
		var first10 []string
		for i := range 10 {
			first10 = append(first10, fmt.Sprintf("web-%04d", i))
		}
		Eventually(rendered).WithTimeout(time.Minute).WithPolling(time.Second).Should(Equal(first10))
		alice.programmed(ctx, "web")
	})
})
