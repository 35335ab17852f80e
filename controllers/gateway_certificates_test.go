package controllers_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/test/testenv"
)

// listenersBlueprint renders a ConfigMap naming the valid listeners of .Listeners and
// every certificateRef with its reason, as a blueprint that leaves out what it cannot
// serve would see them: one for the Gateway, and one for each route on it.
const listenersBlueprint = `
helpers: |
  {{- define "listeners" }}
  {{- $valid := list }}{{ $certificates := list }}
  {{- range .Listeners }}
  {{- if .valid }}{{ $valid = append $valid .name }}{{ end }}
  {{- range .certificateRefs }}{{ $certificates = append $certificates (printf "%s/%s=%s" .namespace .name .reason) }}{{ end }}
  {{- end }}
  data:
    valid: {{ join " " $valid | quote }}
    certificates: {{ join " " $certificates | quote }}
  {{- end }}
gatewayTemplate:
  resourceTemplates:
  - name: listeners
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-listeners}
      {{- include "listeners" . }}
httpRouteTemplate:
  resourceTemplates:
  - name: route-listeners
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .HTTPRoute.metadata.name }}-listeners}
      {{- include "listeners" . }}
`

var _ = Describe("Listener certificateRefs", func() {
	var w world
	BeforeEach(func(ctx SpecContext) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, listenersBlueprint)
		Eventually(w.classCondition(ctx)).Should(HavePrefix("True/Accepted"))
	})

	It("resolves a usable Secret of the Gateway's namespace, and follows it as it comes, breaks and goes", func(ctx SpecContext) {
		w.gatewayWithListeners(ctx, "web", `
- {name: http, protocol: HTTP, port: 80}
- {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: web-tls}]}}`)
		By("referring to a Secret that does not exist")
		Eventually(w.listenerCondition(ctx, "web", "https", "ResolvedRefs")).Should(Equal(
			"False/InvalidCertificateRef: certificateRef " + w.namespace + "/web-tls names a Secret that does not exist or is not of type kubernetes.io/tls"))
		Eventually(w.listeners(ctx, "web")).Should(Equal([]string{
			"http Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs Conflicted=<none> Programmed=True/Programmed kinds=[HTTPRoute] routes=0",
			"https Accepted=True/Accepted ResolvedRefs=False/InvalidCertificateRef Conflicted=<none> Programmed=False/Invalid kinds=[HTTPRoute] routes=0",
		}))
		Eventually(w.gatewayCondition(ctx, "web", "Accepted")).Should(Equal("True/ListenersNotValid: listeners not valid: https (InvalidCertificateRef); valid: http"))
		Eventually(w.configMap(ctx, "web-listeners")).Should(HaveField("Data", Equal(map[string]string{
			"valid": "http", "certificates": w.namespace + "/web-tls=InvalidCertificateRef"})))

		By("creating it")
		secret := w.tlsSecret(ctx, w.namespace, "web-tls")
		Eventually(w.listenerCondition(ctx, "web", "https", "ResolvedRefs")).Should(Equal("True/ResolvedRefs: "))
		Eventually(w.listenerCondition(ctx, "web", "https", "Programmed")).Should(Equal("True/Programmed: "))
		Eventually(w.gatewayCondition(ctx, "web", "Accepted")).Should(Equal("True/Accepted: "))
		Eventually(w.configMap(ctx, "web-listeners")).Should(HaveField("Data", Equal(map[string]string{
			"valid": "http https", "certificates": w.namespace + "/web-tls=ResolvedRefs"})))

		By("replacing its key by one that does not match the certificate")
		_, otherKey, err := testenv.Certificate("other.example.com")
		Expect(err).NotTo(HaveOccurred())
		secret.Data[corev1.TLSPrivateKeyKey] = otherKey
		Expect(k8s.Update(ctx, secret)).To(Succeed())
		Eventually(w.listenerCondition(ctx, "web", "https", "ResolvedRefs")).Should(Equal(
			"False/InvalidCertificateRef: certificateRef " + w.namespace + "/web-tls names a Secret that does not hold a usable certificate and key: tls: private key does not match public key"))
		Eventually(w.configMap(ctx, "web-listeners")).Should(HaveField("Data", HaveKeyWithValue("valid", "http")))

		By("deleting it")
		Expect(k8s.Delete(ctx, secret)).To(Succeed())
		Eventually(w.listenerCondition(ctx, "web", "https", "ResolvedRefs")).Should(HaveSuffix("names a Secret that does not exist or is not of type kubernetes.io/tls"))
	})

	It("gives route templates the same verdicts, and renders the routes again when a Secret changes one", func(ctx SpecContext) {
		w.gatewayWithListeners(ctx, "web", `
- {name: http, protocol: HTTP, port: 80}
- {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: web-tls}]}}`)
		w.route(ctx, w.namespace, "shop", w.namespace)
		Eventually(w.configMap(ctx, "shop-listeners")).Should(HaveField("Data", Equal(map[string]string{
			"valid": "http", "certificates": w.namespace + "/web-tls=InvalidCertificateRef"})))

		By("creating the Secret: only the Gateway's status tells the route reconciler")
		w.tlsSecret(ctx, w.namespace, "web-tls")
		Eventually(w.configMap(ctx, "shop-listeners")).Should(HaveField("Data", Equal(map[string]string{
			"valid": "http https", "certificates": w.namespace + "/web-tls=ResolvedRefs"})))
	})

	It("refuses a Secret that is not of type kubernetes.io/tls, and a reference to another kind", func(ctx SpecContext) {
		Expect(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: "opaque"},
			StringData: map[string]string{corev1.TLSCertKey: "x", corev1.TLSPrivateKeyKey: "y"}})).To(Succeed())
		w.gatewayWithListeners(ctx, "web", `
- {name: opaque, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: opaque}]}}
- {name: configmap, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{kind: ConfigMap, name: web-tls}]}}`)
		Eventually(w.listenerCondition(ctx, "web", "opaque", "ResolvedRefs")).Should(Equal(
			"False/InvalidCertificateRef: certificateRef " + w.namespace + "/opaque names a Secret that does not exist or is not of type kubernetes.io/tls"))
		Eventually(w.listenerCondition(ctx, "web", "configmap", "ResolvedRefs")).Should(Equal(
			"False/InvalidCertificateRef: certificateRef " + w.namespace + "/web-tls is a ConfigMap, not a core Secret"))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("False/Invalid: listeners not valid: opaque (InvalidCertificateRef), configmap (InvalidCertificateRef); nothing is rendered"))
	})

	It("refuses a Secret of another namespace until a ReferenceGrant there lets the Gateway refer to it", func(ctx SpecContext) {
		other := newWorld(ctx)
		other.tlsSecret(ctx, other.namespace, "shared-tls")
		w.gatewayWithListeners(ctx, "web", `
- {name: http, protocol: HTTP, port: 80}
- {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: shared-tls, namespace: `+other.namespace+`}]}}`)
		notPermitted := "False/RefNotPermitted: certificateRef " + other.namespace + "/shared-tls is in another namespace, and no ReferenceGrant in " +
			other.namespace + " lets Gateways of " + w.namespace + " refer to it"
		Eventually(w.listenerCondition(ctx, "web", "https", "ResolvedRefs")).Should(Equal(notPermitted))
		Eventually(w.configMap(ctx, "web-listeners")).Should(HaveField("Data", HaveKeyWithValue("certificates", other.namespace+"/shared-tls=RefNotPermitted")))

		grant := &gatewayv1.ReferenceGrant{
			ObjectMeta: metav1.ObjectMeta{Namespace: other.namespace, Name: "gateways"},
			Spec: gatewayv1.ReferenceGrantSpec{
				From: []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.GroupName, Kind: "Gateway", Namespace: gatewayv1.Namespace(w.namespace)}},
				To:   []gatewayv1.ReferenceGrantTo{{Group: "", Kind: "Secret"}},
			},
		}
		Expect(k8s.Create(ctx, grant)).To(Succeed())
		Eventually(w.listenerCondition(ctx, "web", "https", "ResolvedRefs")).Should(Equal("True/ResolvedRefs: "))
		Eventually(w.configMap(ctx, "web-listeners")).Should(HaveField("Data", Equal(map[string]string{
			"valid": "http https", "certificates": other.namespace + "/shared-tls=ResolvedRefs"})))

		Expect(k8s.Delete(ctx, grant)).To(Succeed())
		Eventually(w.listenerCondition(ctx, "web", "https", "ResolvedRefs")).Should(Equal(notPermitted))
	})

	It("reads a Secret from the API server once per change of it: a steady state reads none", func(ctx SpecContext) {
		secret := w.tlsSecret(ctx, w.namespace, "web-tls")
		w.gatewayWithListeners(ctx, "web", `
- {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: web-tls}]}}`)
		Eventually(w.listenerCondition(ctx, "web", "https", "ResolvedRefs")).Should(Equal("True/ResolvedRefs: "))
		reads := metric("gatewright_secret_reads_total")

		By("reconciling the Gateway again, for a change of its own")
		before := reads()
		w.gatewayWithListeners(ctx, "web", `
- {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: web-tls}]}}
- {name: https-alt, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: web-tls}]}}`)
		Eventually(w.listenerCondition(ctx, "web", "https-alt", "ResolvedRefs")).Should(Equal("True/ResolvedRefs: "))
		Consistently(reads).Should(Equal(before), "a Secret that did not change is not read again")

		By("changing the Secret")
		secret.Labels = map[string]string{"rotated": "yes"}
		Expect(k8s.Update(ctx, secret)).To(Succeed())
		Eventually(reads).Should(Equal(before + 1))
		Consistently(reads).Should(Equal(before+1), "read once for its new version")
	})
})

// tlsSecret creates a kubernetes.io/tls Secret holding a new self-signed certificate.
func (w world) tlsSecret(ctx SpecContext, namespace, name string) *corev1.Secret {
	crt, key, err := testenv.Certificate(name + ".example.com")
	Expect(err).NotTo(HaveOccurred())
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key},
	}
	Expect(k8s.Create(ctx, secret)).To(Succeed())
	return secret
}

// listenerCondition returns a condition of one listener of a Gateway as
// "Status/Reason: message".
func (w world) listenerCondition(ctx SpecContext, gateway, listener, conditionType string) func() string {
	return func() string {
		gw := &gatewayv1.Gateway{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: gateway}, gw)).To(Succeed())
		for _, l := range gw.Status.Listeners {
			if string(l.Name) == listener {
				return testenv.Condition(l.Conditions, conditionType, gw.Generation)
			}
		}
		return "<no listener " + listener + ">"
	}
}
