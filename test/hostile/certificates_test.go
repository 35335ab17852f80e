package hostile

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/test/testenv"
)

// seeingBlueprint renders everything a gateway template may see of certificates:
// .Listeners, and .Gateway with its status.
const seeingBlueprint = `
gatewayTemplate:
  resourceTemplates:
  - name: seen
    template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ .Gateway.metadata.name }}-seen}
      data:
        listeners: {{ toJson .Listeners | quote }}
        gateway: {{ toJson .Gateway | quote }}
`

var _ = Describe("A tenant pointing a certificateRef at another tenant's Secret", func() {
	It("gets RefNotPermitted, cannot tell whether the Secret exists, and sees nothing of it even once granted", func(ctx SpecContext) {
		class := newClass(ctx, seeingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		bob := newTenant(ctx, "bob", "team-b")
		crt, key, err := testenv.Certificate("bob.example.com")
		Expect(err).NotTo(HaveOccurred())
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: bob.namespace, Name: "tls"},
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key},
		}
		Expect(bob.Create(ctx, secret)).To(Succeed())
		versions := watchConfigMaps(ctx, alice.namespace)

		alice.apply(ctx, class, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: bobs, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: tls, namespace: `+bob.namespace+`}]}}
  - {name: nothing, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: no-such, namespace: `+bob.namespace+`}]}}
`)
		alice.programmed(ctx, "web")
		notPermitted := func(name string) string {
			return "False/RefNotPermitted: certificateRef " + bob.namespace + "/" + name + " is in another namespace, and no ReferenceGrant in " +
				bob.namespace + " lets Gateways of " + alice.namespace + " refer to it"
		}
		By("telling a Secret that exists from one that does not by nothing but the name Alice gave")
		Eventually(alice.listenerCondition(ctx, "web", "bobs", "ResolvedRefs")).Should(Equal(notPermitted("tls")))
		Eventually(alice.listenerCondition(ctx, "web", "nothing", "ResolvedRefs")).Should(Equal(notPermitted("no-such")))
		Eventually(alice.configMap(ctx, "web-seen")).Should(HaveField("Data", HaveKeyWithValue("listeners",
			ContainSubstring(`"name":"tls","namespace":"`+bob.namespace+`","reason":"RefNotPermitted","resolved":false`))))

		By("Bob granting Alice's Gateways his Secrets")
		applyAs(ctx, admin, `
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: alice-gateways, namespace: `+bob.namespace+`}
spec:
  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: `+alice.namespace+`}]
  to: [{group: "", kind: Secret}]
`, nil)
		Eventually(alice.listenerCondition(ctx, "web", "bobs", "ResolvedRefs")).Should(Equal("True/ResolvedRefs: "))
		Eventually(alice.listenerCondition(ctx, "web", "nothing", "ResolvedRefs")).Should(Equal(
			"False/InvalidCertificateRef: certificateRef " + bob.namespace + "/no-such names a Secret that does not exist or is not of type kubernetes.io/tls"))
		Eventually(alice.configMap(ctx, "web-seen")).Should(HaveField("Data", HaveKeyWithValue("listeners",
			ContainSubstring(`"name":"tls","namespace":"`+bob.namespace+`","reason":"ResolvedRefs","resolved":true`))))

		By("finding nothing of the Secret in anything rendered for Alice or in her Gateway")
		leaks := secretPieces(secret)
		Expect(versions("web-seen")).NotTo(BeEmpty())
		for _, data := range versions("web-seen") {
			for _, value := range data {
				for _, piece := range leaks {
					Expect(value).NotTo(ContainSubstring(piece))
				}
			}
		}
		gw, err := alice.getGateway(ctx, "web")
		Expect(err).NotTo(HaveOccurred())
		status, err := json.Marshal(gw.Status)
		Expect(err).NotTo(HaveOccurred())
		for _, piece := range leaks {
			Expect(string(status)).NotTo(ContainSubstring(piece))
		}
	})
})

// secretPieces are strings that would betray that something of secret was copied: its
// UID, and a line of each PEM block, as is and base64-encoded as a Secret's data is in JSON.
func secretPieces(secret *corev1.Secret) []string {
	pieces := []string{string(secret.UID)}
	for _, data := range secret.Data {
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		pieces = append(pieces, lines[1], base64.StdEncoding.EncodeToString(data)[:40])
	}
	return pieces
}

// listenerCondition returns a condition of one listener of the tenant's Gateway as
// "Status/Reason: message".
func (t *tenant) listenerCondition(ctx context.Context, gateway, listener, conditionType string) func() string {
	return func() string {
		gw := &gatewayv1.Gateway{}
		if err := t.Get(ctx, client.ObjectKey{Namespace: t.namespace, Name: gateway}, gw); err != nil {
			return err.Error()
		}
		for _, l := range gw.Status.Listeners {
			if string(l.Name) == listener {
				return testenv.Condition(l.Conditions, conditionType, gw.Generation)
			}
		}
		return "<no listener " + listener + ">"
	}
}
