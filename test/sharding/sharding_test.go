package sharding

import (
	"context"
	"fmt"
	"sort"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/controllers"

	"github.com/gatewright/gatewright/test/testenv"
)

func gateway(ctx context.Context, namespace, name, class string) {
	apply(ctx, namespace, fmt.Sprintf(`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: %s, namespace: NAMESPACE}
spec:
  gatewayClassName: %s
  listeners:
  - {name: http, protocol: HTTP, port: 80}
`, name, class))
}

// get reads obj afresh, by its namespace and name.
func get(ctx context.Context, obj client.Object) client.Object {
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	return obj
}

func named[T client.Object](obj T, namespace, name string) T {
	obj.SetNamespace(namespace)
	obj.SetName(name)
	return obj
}

// condition returns a condition as "Status/Reason: message", or what is wrong with it.

func gatewayCondition(ctx context.Context, namespace, name, conditionType string) func() string {
	return func() string {
		gw := get(ctx, named(&gatewayv1.Gateway{}, namespace, name)).(*gatewayv1.Gateway)
		return testenv.Condition(gw.Status.Conditions, conditionType, gw.Generation)
	}
}

// writers lists the managers, other than this test, of an object's fields.
func writers(ctx context.Context, obj client.Object) func() []string {
	return func() []string {
		seen := map[string]bool{}
		for _, entry := range get(ctx, obj).GetManagedFields() {
			if entry.Manager != "test" {
				seen[entry.Manager] = true
			}
		}
		out := make([]string, 0, len(seen))
		for manager := range seen {
			out = append(out, manager)
		}
		sort.Strings(out)
		return out
	}
}

// ancestors returns a policy's ancestor conditions as "Kind/name Type=Status/Reason: message".
func ancestors(ctx context.Context, obj client.Object) func() []string {
	return func() []string { return testenv.Ancestors(get(ctx, obj)) }
}

// configMapData reads a ConfigMap's data; the ConfigMap may not exist yet.
func configMapData(ctx context.Context, namespace, name string) func() (map[string]string, error) {
	return func() (map[string]string, error) {
		cm := &corev1.ConfigMap{}
		err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm)
		return cm.Data, err
	}
}

// resourceVersions reads the resourceVersion of every object.
func resourceVersions(ctx context.Context, objs ...client.Object) func() []string {
	return func() []string {
		versions := make([]string, len(objs))
		for i, obj := range objs {
			versions[i] = get(ctx, obj).GetResourceVersion()
		}
		return versions
	}
}

var _ = Describe("Two instances sharded by GatewayClass", func() {
	It("each elect a leader with a lease of their own", func(ctx SpecContext) {
		holders := func() map[string]string {
			var leases coordinationv1.LeaseList
			Expect(k8s.List(ctx, &leases, client.InNamespace(controllerNamespace))).To(Succeed())
			out := map[string]string{}
			for _, lease := range leases.Items {
				if lease.Spec.HolderIdentity != nil {
					out[lease.Name] = *lease.Spec.HolderIdentity
				}
			}
			return out
		}
		Eventually(holders).Should(And(
			HaveKeyWithValue(shards[0].options.LeaderElectionID(), Not(BeEmpty())),
			HaveKeyWithValue(shards[1].options.LeaderElectionID(), Not(BeEmpty())),
		))
		Expect(shards[0].options.LeaderElectionID()).NotTo(Equal(shards[1].options.LeaderElectionID()))
		Expect(holders()[shards[0].options.LeaderElectionID()]).NotTo(Equal(holders()[shards[1].options.LeaderElectionID()]))
	})

	It("program only the Gateways of their own classes, and leave a class neither lists alone", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		gateway(ctx, ns, "a", "alpha")
		gateway(ctx, ns, "b", "beta")
		gateway(ctx, ns, "c", "gamma")
		Eventually(gatewayCondition(ctx, ns, "a", "Programmed")).Should(HavePrefix("True/Programmed"))
		Eventually(gatewayCondition(ctx, ns, "b", "Programmed")).Should(HavePrefix("True/Programmed"))

		Expect(writers(ctx, named(&gatewayv1.Gateway{}, ns, "a"))()).To(Equal([]string{"shard-alpha"}))
		Expect(writers(ctx, named(&gatewayv1.Gateway{}, ns, "b"))()).To(Equal([]string{"shard-beta"}))
		Expect(writers(ctx, &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "alpha"}})()).To(Equal([]string{"shard-alpha"}))
		Expect(writers(ctx, &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "beta"}})()).To(Equal([]string{"shard-beta"}))
		Expect(writers(ctx, named(&corev1.ConfigMap{}, ns, "a-config"))()).To(Equal([]string{"gatewright"}))
		By("the primary shard, which lists the first class, alpha, writes what belongs to no class")
		// The blueprint's status is written by its own reconciler, which a Gateway's
		// Programmed does not wait for.
		sharedBlueprint := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "shared"}}
		Eventually(writers(ctx, sharedBlueprint)).Should(Equal([]string{"shard-alpha"}))

		Consistently(writers(ctx, named(&gatewayv1.Gateway{}, ns, "c"))).Should(BeEmpty())
		Expect(writers(ctx, &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "gamma"}})()).To(BeEmpty())
		Expect(writers(ctx, sharedBlueprint)()).To(Equal([]string{"shard-alpha"}))
	})

	It("keep each other's route parent status, route objects and policy ancestors, and settle", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		apply(ctx, ns, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: shared, namespace: NAMESPACE}
spec:
  default: {greeting: shared}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: a, namespace: NAMESPACE}
spec:
  gatewayClassName: alpha
  infrastructure:
    parametersRef: {group: gatewright.dev, kind: GatewayConfig, name: shared}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: b, namespace: NAMESPACE}
spec:
  gatewayClassName: beta
  infrastructure:
    parametersRef: {group: gatewright.dev, kind: GatewayConfig, name: shared}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: tenant, namespace: NAMESPACE}
spec:
  targetRefs: [{group: "", kind: Namespace, name: NAMESPACE}]
  default: {timeout: 30s}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: classes, namespace: NAMESPACE}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: GatewayClass, name: alpha}
  - {group: gateway.networking.k8s.io, kind: GatewayClass, name: beta}
  default: {replicas: 2}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: beta-only, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: beta}]
  default: {port: 8080}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: gamma-only, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: gamma}]
  default: {port: 8080}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: NAMESPACE}
spec:
  parentRefs: [{name: a}, {name: b}]
`)
		route := named(&gatewayv1.HTTPRoute{}, ns, "shop")
		Eventually(func() []string {
			var out []string
			for _, p := range get(ctx, route).(*gatewayv1.HTTPRoute).Status.Parents {
				out = append(out, fmt.Sprintf("%s %s: %s", p.ControllerName, p.ParentRef.Name, testenv.Condition(p.Conditions, "Accepted", route.Generation)))
			}
			return out
		}).Should(Equal([]string{
			"gatewright.dev/gateway-controller a: True/Accepted: ",
			"gatewright.dev/gateway-controller b: True/Accepted: ",
		}))
		Eventually(configMapData(ctx, ns, "shop-on-a")).Should(Equal(map[string]string{"timeout": "30s"}))
		Eventually(configMapData(ctx, ns, "shop-on-b")).Should(Equal(map[string]string{"timeout": "30s"}))

		shared := named(&gatewrightv1alpha1.GatewayConfig{}, ns, "shared")
		Eventually(ancestors(ctx, shared)).Should(Equal([]string{
			"Gateway/a Accepted=True/Accepted: ",
			"Gateway/a Enforced=True/Enforced: in effect on every Gateway and route it reaches",
			"Gateway/b Accepted=True/Accepted: ",
			"Gateway/b Enforced=True/Enforced: in effect on every Gateway and route it reaches",
		}))
		tenant := named(&gatewrightv1alpha1.GatewayConfig{}, ns, "tenant")
		Eventually(ancestors(ctx, tenant)).Should(Equal([]string{
			"Namespace/" + ns + " Accepted=True/Accepted: ",
			"Namespace/" + ns + " Enforced=True/Enforced: in effect on every Gateway and route it reaches",
		}))
		classes := named(&gatewrightv1alpha1.GatewayClassConfig{}, ns, "classes")
		Eventually(ancestors(ctx, classes)).Should(Equal([]string{
			"GatewayClass/alpha Accepted=True/Accepted: ",
			"GatewayClass/alpha Enforced=True/Enforced: in effect on every Gateway and route it reaches",
			"GatewayClass/beta Accepted=True/Accepted: ",
			"GatewayClass/beta Enforced=True/Enforced: in effect on every Gateway and route it reaches",
		}))
		betaOnly := named(&gatewrightv1alpha1.GatewayClassConfig{}, ns, "beta-only")
		Eventually(ancestors(ctx, betaOnly)).Should(Equal([]string{
			"GatewayClass/beta Accepted=True/Accepted: ",
			"GatewayClass/beta Enforced=True/Enforced: in effect on every Gateway and route it reaches",
		}))
		By("each ancestor entry has one writer: the shard of its class, or the primary shard (alpha) for a Namespace")
		Expect(writers(ctx, betaOnly)()).To(Equal([]string{"shard-beta"}))
		Expect(writers(ctx, tenant)()).To(Equal([]string{"shard-alpha"}))

		gammaOnly := named(&gatewrightv1alpha1.GatewayClassConfig{}, ns, "gamma-only")
		settled := resourceVersions(ctx, route, shared, tenant, classes, betaOnly, gammaOnly,
			named(&gatewayv1.Gateway{}, ns, "a"), named(&gatewayv1.Gateway{}, ns, "b"),
			named(&corev1.ConfigMap{}, ns, "shop-on-a"), named(&corev1.ConfigMap{}, ns, "shop-on-b"))
		Consistently(settled).Should(Equal(settled()))
		By("no instance writes the ancestor entry of a class that neither lists")
		Expect(ancestors(ctx, gammaOnly)()).To(BeEmpty())
	})

	It("hand a Gateway over when it moves to the other shard's class, without deleting its objects", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		gateway(ctx, ns, "m", "alpha")
		Eventually(configMapData(ctx, ns, "m-config")).Should(HaveKeyWithValue("class", "alpha"))
		config := get(ctx, named(&corev1.ConfigMap{}, ns, "m-config"))
		uid := config.GetUID()

		gateway(ctx, ns, "m", "beta")
		Eventually(configMapData(ctx, ns, "m-config")).Should(HaveKeyWithValue("class", "beta"))
		Expect(get(ctx, config).GetUID()).To(Equal(uid), "the ConfigMap was deleted and created again")
		Eventually(gatewayCondition(ctx, ns, "m", "Programmed")).Should(HavePrefix("True/Programmed"))
		rendering := get(ctx, named(&gatewrightv1alpha1.Rendering{}, ns, "gateway.m")).(*gatewrightv1alpha1.Rendering)
		Expect(rendering.Finalizers).To(ContainElement("gatewright.dev/cleanup"))
		Expect(rendering.Objects).To(ContainElement(HaveField("Name", "m-config")))
	})
})

var _ = Describe("LeaderElectionID", func() {
	id := func(classes ...string) string { return controllers.Options{GatewayClasses: classes}.LeaderElectionID() }

	It("keeps the lease of an unsharded controller", func() {
		Expect(id()).To(Equal("gatewright.dev"))
	})

	It("is the same for the same set of classes, however written, and differs between sets", func() {
		Expect(id("a", "b")).To(Equal(id("b", " a", "", "b")))
		Expect(id("a", "b")).NotTo(Equal(id("a")))
		Expect(id("a")).NotTo(Equal(id("b")))
		Expect(id("a", "b")).To(MatchRegexp(`^gatewright\.dev-[0-9a-f]{16}$`))
	})
})
