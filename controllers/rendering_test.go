package controllers_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

var _ = Describe("Rendering", func() {
	var w world
	BeforeEach(func(ctx SpecContext) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		Eventually(w.classCondition(ctx)).Should(HavePrefix("True/Accepted"))
	})

	renderedNames := func(ctx SpecContext, name string) func() []string {
		return func() []string {
			r := &gatewrightv1alpha1.Rendering{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name}, r); err != nil {
				return []string{err.Error()}
			}
			var names []string
			for _, o := range r.Objects {
				names = append(names, o.Kind+"/"+o.Name+"@"+o.Template)
			}
			return names
		}
	}

	It("records every object with its template, hash and readiness, and is owned by the Gateway", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(renderedNames(ctx, "gateway.web")).Should(ConsistOf("ConfigMap/web-config@config", "Service/web-proxy@service"))
		r := w.rendering(ctx, "gateway.web")
		gw := w.getGateway(ctx, "web")
		Expect(r.Owner).To(Equal(gatewrightv1alpha1.RenderingOwner{Kind: "Gateway", Name: "web", UID: gw.UID, GatewayNamespace: w.namespace, GatewayName: "web"}))
		Expect(r.OwnerReferences).To(ConsistOf(HaveField("UID", gw.UID)))
		Eventually(func() []gatewrightv1alpha1.RenderedObject { return w.rendering(ctx, "gateway.web").Objects }).Should(
			HaveEach(SatisfyAll(HaveField("Hash", Not(BeEmpty())), HaveField("Ready", BeTrue()))))
	})

	It("survives a kubectl replace of the Gateway: what it recorded is still pruned", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))

		By("replacing the Gateway with a manifest that has no annotations and no finalizers")
		Eventually(func() error { // the Gateway's status writes may race the replace
			gw := w.getGateway(ctx, "web")
			replaced := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: "web", ResourceVersion: gw.ResourceVersion}, Spec: gw.Spec}
			replaced.Spec.Listeners[0].Port = 8080
			return k8s.Update(ctx, replaced)
		}).Should(Succeed())
		Eventually(func() int64 { return w.getGateway(ctx, "web").Status.Conditions[0].ObservedGeneration }).Should(Equal(w.getGateway(ctx, "web").Generation))
		Expect(renderedNames(ctx, "gateway.web")()).To(ConsistOf("ConfigMap/web-config@config", "Service/web-proxy@service"))

		By("dropping a template: its object is pruned, since the record was not lost")
		w.classAndBlueprint(ctx, configBlueprint[:strings.Index(configBlueprint, "  - name: service")])
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "web-proxy"}, &corev1.Service{}))
		}).Should(BeTrue())
		Eventually(renderedNames(ctx, "gateway.web")).Should(ConsistOf("ConfigMap/web-config@config"))
	})

	It("moves a legacy inventory annotation once, keeping only the entries that check out", func(ctx SpecContext) {
		fixture := newLegacyFixture(ctx, w.namespace, newWorld(ctx).namespace, "web-old", func(namespace string) map[string]string {
			return map[string]string{
				"app.kubernetes.io/managed-by":           "gatewright",
				"gateway.networking.k8s.io/gateway-name": "web",
				"gatewright.dev/gateway-namespace":       namespace,
				"gatewright.dev/template":                "old",
			}
		})
		legacy, _ := json.Marshal(fixture.entries())
		Expect(k8s.Create(ctx, &gatewayv1.Gateway{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: w.namespace, Name: "web",
				Annotations: map[string]string{"gatewright.dev/inventory": string(legacy)},
				Finalizers:  []string{"gatewright.dev/cleanup"},
			},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: gatewayv1.ObjectName(w.class), Listeners: []gatewayv1.Listener{{Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80}}},
		})).To(Succeed())

		Eventually(func() bool {
			gw := w.getGateway(ctx, "web")
			_, annotated := gw.Annotations["gatewright.dev/inventory"]
			return annotated || len(gw.Finalizers) > 0
		}).Should(BeFalse(), "the legacy annotation and finalizer are removed")
		fixture.expectOnlyTheStalePruned(ctx)
		Eventually(renderedNames(ctx, "gateway.web")).Should(ConsistOf("ConfigMap/web-config@config", "Service/web-proxy@service"))
	})

	It("moves a legacy entry of a cluster-scoped object only when the blueprint allows its kind", func(ctx SpecContext) {
		// The edit below must be revision 2: the first spec is revision 1 first.
		Eventually(w.blueprintStatus(ctx)).Should(HaveField("CurrentRevision", int64(1)))
		w.classAndBlueprint(ctx, "rollout: {strategy: AllAtOnce}\nclusterScopedKinds: [{group: rbac.authorization.k8s.io, kind: ClusterRole}]\n"+configBlueprint)
		// Gateways run the edit once it is a revision: one that renders it says they do.
		// It is in a namespace of its own: a Rendering here would make web's annotation
		// younger than Gatewright's Renderings, and so not a legacy one.
		probe := world{namespace: w.namespace + "-probe", class: w.class, blueprint: w.blueprint}
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: probe.namespace}})).To(Succeed())
		probe.gateway(ctx, "probe")
		Eventually(probe.renderedRevision(ctx, "probe")).Should(BeEquivalentTo(2))
		labels := map[string]string{
			"app.kubernetes.io/managed-by":           "gatewright",
			"gateway.networking.k8s.io/gateway-name": "web",
			"gatewright.dev/gateway-namespace":       w.namespace,
			"gatewright.dev/template":                "old",
		}
		allowed := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: w.namespace + "-old-reader", Labels: labels}}
		Expect(k8s.Create(ctx, allowed)).To(Succeed())
		notAllowed := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: w.namespace + "-old-binding", Labels: labels},
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: allowed.Name}}
		Expect(k8s.Create(ctx, notAllowed)).To(Succeed())
		legacy, _ := json.Marshal([]map[string]string{
			{"v": "rbac.authorization.k8s.io/v1", "k": "ClusterRole", "n": allowed.Name, "t": "old"},
			{"v": "rbac.authorization.k8s.io/v1", "k": "ClusterRoleBinding", "n": notAllowed.Name, "t": "old"},
		})
		Expect(k8s.Create(ctx, &gatewayv1.Gateway{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: w.namespace, Name: "web",
				Annotations: map[string]string{"gatewright.dev/inventory": string(legacy)},
			},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: gatewayv1.ObjectName(w.class), Listeners: []gatewayv1.Listener{{Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80}}},
		})).To(Succeed())

		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(allowed), &rbacv1.ClusterRole{}))
		}).Should(BeTrue(), "the ClusterRole the blueprint may render was the Gateway's, and is pruned")
		Eventually(func() bool {
			_, annotated := w.getGateway(ctx, "web").Annotations["gatewright.dev/inventory"]
			return annotated
		}).Should(BeFalse())
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(notAllowed), &rbacv1.ClusterRoleBinding{})).To(Succeed(),
			"a kind the blueprint does not allow cluster-wide is never taken in, whatever its labels")
		Eventually(renderedNames(ctx, "gateway.web")).Should(ConsistOf("ConfigMap/web-config@config", "Service/web-proxy@service"))
	})

	It("is deleted with the objects it lists once its Gateway is gone, and a tenant's edit of the Gateway cannot stop it", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(renderedNames(ctx, "gateway.web")).Should(ConsistOf("ConfigMap/web-config@config", "Service/web-proxy@service"))
		Expect(k8s.Delete(ctx, w.getGateway(ctx, "web"))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "web-config"}, &corev1.ConfigMap{}))
		}).Should(BeTrue(), "no garbage collector runs here: the Rendering's clean-up deleted it")
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "gateway.web"}, &gatewrightv1alpha1.Rendering{}))
		}).Should(BeTrue())
	})
})
