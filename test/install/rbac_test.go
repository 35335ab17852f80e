package install

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Each spec installs the chart's RBAC for real, as a release of its own, and binds the
// persona roles the way docs/install.md says. Every client below impersonates a user or
// the controller's ServiceAccount; the API server authorizes them with RBAC.
var _ = Describe("RBAC", func() {
	var (
		release, teamA, teamB                string
		tenant, viewer, provider, controller client.Client
	)

	BeforeEach(func(ctx SpecContext) {
		release = newNamespace(ctx, "gatewright", nil) // the release namespace, named for the release
		teamA = newNamespace(ctx, "team-a", nil)
		teamB = newNamespace(ctx, "team-b", nil)
		rel, err := helmTemplate(release, release, nil)
		Expect(err).NotTo(HaveOccurred())
		for _, obj := range decodeObjects([]byte(rel.Manifest)) {
			if obj.GetAPIVersion() == rbacv1.SchemeGroupVersion.String() || obj.GetKind() == "ServiceAccount" {
				create(ctx, obj)
			}
		}
		create(ctx, objectIn(teamA, `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-gatewright, namespace: NAMESPACE}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]`, release))
		create(ctx, objectIn(teamA, `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: victor-gatewright, namespace: NAMESPACE}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-viewer}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: victor}]`, release))
		create(ctx, objectIn("", `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: RELEASE-pat}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-provider}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: pat}]`, release))

		tenant = clientAs("alice")
		viewer = clientAs("victor")
		provider = clientAs("pat")
		controller = clientAs("system:serviceaccount:" + release + ":" + release + "-controller")
		// The API server's RBAC authorizer reads bindings from a cache: wait until each
		// grant holds, so that a refusal below is a refusal and not a cache miss.
		awaitGrant(ctx, tenant, "GatewayConfig", teamA)
		awaitGrant(ctx, viewer, "GatewayConfig", teamA)
		awaitGrant(ctx, provider, "GatewayClassBlueprint", "")
		awaitGrant(ctx, controller, "Gateway", "")
		awaitGrant(ctx, controller, "Lease", release)
	})

	Describe("a tenant, bound to the tenant role in its namespace", func() {
		It("creates and updates a GatewayConfig there", func(ctx SpecContext) {
			config := objectIn(teamA, gatewayConfig, release)
			Expect(tenant.Create(ctx, config)).To(Succeed())
			Expect(unstructured.SetNestedField(config.Object, int64(3), "spec", "default", "replicas")).To(Succeed())
			Expect(tenant.Update(ctx, config)).To(Succeed())
		})

		It("cannot create a GatewayConfig in another namespace", func(ctx SpecContext) {
			Expect(tenant.Create(ctx, objectIn(teamB, gatewayConfig, release))).To(beForbidden())
		})

		It("cannot create, update or delete a GatewayClassConfig, not even in its namespace", func(ctx SpecContext) {
			Expect(tenant.Create(ctx, objectIn(teamA, gatewayClassConfig, release))).To(beForbidden())

			config := objectIn(teamA, gatewayClassConfig, release)
			Expect(k8s.Create(ctx, config)).To(Succeed())
			Expect(unstructured.SetNestedField(config.Object, int64(1), "spec", "override", "replicas")).To(Succeed())
			Expect(tenant.Update(ctx, config)).To(beForbidden())
			Expect(tenant.Patch(ctx, config, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"override":null}}`)))).To(beForbidden())
			Expect(tenant.Status().Update(ctx, config)).To(beForbidden())
			Expect(tenant.Delete(ctx, config)).To(beForbidden())
		})

		It("reads the status of the GatewayClassConfigs in its namespace, and only there", func(ctx SpecContext) {
			config := objectIn(teamA, gatewayClassConfig, release)
			Expect(k8s.Create(ctx, config)).To(Succeed())
			Expect(unstructured.SetNestedSlice(config.Object, []any{map[string]any{
				"ancestorRef":    map[string]any{"group": "", "kind": "Namespace", "name": teamA},
				"controllerName": "gatewright.dev/gateway-controller",
				"conditions": []any{map[string]any{
					"type": "Accepted", "status": "True", "reason": "Accepted", "message": "",
					"lastTransitionTime": "2026-01-01T00:00:00Z", "observedGeneration": int64(1),
				}},
			}}, "status", "ancestors")).To(Succeed())
			Expect(k8s.Status().Update(ctx, config)).To(Succeed())

			read := emptyObject("GatewayClassConfig")
			Expect(tenant.SubResource("status").Get(ctx, objectIn(teamA, gatewayClassConfig, release), read)).To(Succeed())
			ancestors, _, _ := unstructured.NestedSlice(read.Object, "status", "ancestors")
			Expect(ancestors).To(HaveExactElements(HaveKeyWithValue("controllerName", "gatewright.dev/gateway-controller")))
			Expect(tenant.List(ctx, emptyList("GatewayClassConfig"), client.InNamespace(teamB))).To(beForbidden())
		})

		It("cannot write blueprints", func(ctx SpecContext) {
			Expect(tenant.Create(ctx, objectIn("", blueprint, release))).To(beForbidden())
			existing := objectIn("", blueprint, release)
			Expect(k8s.Create(ctx, existing)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(k8s.Delete(ctx, existing)).To(Succeed()) })
			Expect(tenant.Delete(ctx, existing)).To(beForbidden())
		})

		It("reads the Renderings of its namespace but cannot create, change, release or delete one", func(ctx SpecContext) {
			Expect(tenant.Create(ctx, objectIn(teamA, rendering, release))).To(beForbidden())
			existing := objectIn(teamA, rendering, release)
			create(ctx, existing)
			read := emptyObject("Rendering")
			Expect(tenant.Get(ctx, client.ObjectKeyFromObject(existing), read)).To(Succeed())
			Expect(unstructured.SetNestedSlice(read.Object, nil, "objects")).To(Succeed())
			Expect(tenant.Update(ctx, read)).To(beForbidden())
			Expect(tenant.Patch(ctx, read, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)))).To(beForbidden())
			Expect(tenant.Delete(ctx, read)).To(beForbidden())
			Expect(viewer.Get(ctx, client.ObjectKeyFromObject(existing), emptyObject("Rendering"))).To(Succeed())
			Expect(controller.Update(ctx, read)).To(Succeed(), "the controller writes Renderings")
		})
	})

	It("lets a viewer, bound to the viewer role in a namespace, read there and write nothing", func(ctx SpecContext) {
		Expect(k8s.Create(ctx, objectIn(teamA, gatewayClassConfig, release))).To(Succeed())
		Expect(viewer.Get(ctx, client.ObjectKey{Namespace: teamA, Name: "limits"}, emptyObject("GatewayClassConfig"))).To(Succeed())
		Expect(viewer.Create(ctx, objectIn(teamA, gatewayConfig, release))).To(beForbidden())
	})

	Describe("a provider, bound to the provider role cluster-wide", func() {
		It("creates blueprints, GatewayClasses and GatewayClassConfigs in any namespace", func(ctx SpecContext) {
			for _, obj := range []*unstructured.Unstructured{
				objectIn("", blueprint, release),
				objectIn("", gatewayClass, release),
				objectIn(release, gatewayClassConfig, release),
				objectIn(teamA, gatewayClassConfig, release),
			} {
				Expect(provider.Create(ctx, obj)).To(Succeed(), key(obj))
				DeferCleanup(func(ctx SpecContext) { Expect(k8s.Delete(ctx, obj)).To(Succeed()) })
			}
		})

		It("reads the tenants' GatewayConfigs but does not write them", func(ctx SpecContext) {
			Expect(provider.List(ctx, emptyList("GatewayConfig"))).To(Succeed())
			Expect(provider.Create(ctx, objectIn(teamA, gatewayConfig, release))).To(beForbidden())
		})
	})

	Describe("the controller's ServiceAccount", func() {
		It("manages the kinds the blueprints render in any namespace, and reads Secrets but cannot write them", func(ctx SpecContext) {
			configMap := objectIn(teamA, "{apiVersion: v1, kind: ConfigMap, metadata: {name: web, namespace: NAMESPACE}}", release)
			Expect(controller.Create(ctx, configMap)).To(Succeed())
			Expect(controller.Delete(ctx, configMap)).To(Succeed())
			// certificateRefs: Kubernetes cannot grant less than every Secret's data.
			Expect(controller.List(ctx, emptyList("Secret"), client.InNamespace(teamA))).To(Succeed())
			secret := objectIn(teamA, "{apiVersion: v1, kind: Secret, metadata: {name: web, namespace: NAMESPACE}}", release)
			Expect(controller.Create(ctx, secret)).To(beForbidden())
		})

		It("holds its lease in the release namespace only", func(ctx SpecContext) {
			lease := "{apiVersion: coordination.k8s.io/v1, kind: Lease, metadata: {name: gatewright.dev, namespace: NAMESPACE}}"
			Expect(controller.Create(ctx, objectIn(release, lease, release))).To(Succeed())
			Expect(controller.Create(ctx, objectIn(teamA, lease, release))).To(beForbidden())
		})

		It("cannot change what providers and tenants wrote, only their status", func(ctx SpecContext) {
			Expect(controller.Create(ctx, objectIn(teamA, gatewayClassConfig, release))).To(beForbidden())
			Expect(controller.Create(ctx, objectIn(teamA, gatewayConfig, release))).To(beForbidden())
		})
	})

	// envtest runs no kube-controller-manager, so no clusterrole-aggregation controller
	// fills the built-in roles: the labels are checked against their aggregation selectors.
	It("joins the tenant role to admin and edit, the viewer role to view, and the provider role to none", func(ctx SpecContext) {
		joins := func(builtIn, role string) bool {
			aggregate := &rbacv1.ClusterRole{}
			Expect(k8s.Get(ctx, client.ObjectKey{Name: builtIn}, aggregate)).To(Succeed())
			Expect(aggregate.AggregationRule).NotTo(BeNil())
			persona := &rbacv1.ClusterRole{}
			Expect(k8s.Get(ctx, client.ObjectKey{Name: "gatewright-" + role}, persona)).To(Succeed())
			for _, selector := range aggregate.AggregationRule.ClusterRoleSelectors {
				s, err := metav1.LabelSelectorAsSelector(&selector)
				Expect(err).NotTo(HaveOccurred())
				if s.Matches(labels.Set(persona.Labels)) {
					return true
				}
			}
			return false
		}
		Expect(joins("admin", "tenant")).To(BeTrue())
		Expect(joins("edit", "tenant")).To(BeTrue())
		Expect(joins("view", "tenant")).To(BeFalse(), "view must stay read-only")
		Expect(joins("view", "viewer")).To(BeTrue())
		for _, builtIn := range []string{"admin", "edit", "view"} {
			Expect(joins(builtIn, "provider")).To(BeFalse(), "a namespace %s must not write GatewayClassConfigs", builtIn)
		}
	})
})

const (
	gatewayConfig = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {replicas: 2}`
	gatewayClassConfig = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: limits, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: internet}]
  override: {replicas: 2}`
	blueprint = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: RELEASE}
spec:
  gatewayTemplate: {}`
	rendering = `
apiVersion: gatewright.dev/v1alpha1
kind: Rendering
metadata: {name: gateway.web, namespace: NAMESPACE}
owner: {kind: Gateway, name: web, gatewayNamespace: NAMESPACE, gatewayName: web}
objects: [{apiVersion: v1, kind: ConfigMap, namespace: NAMESPACE, name: web-config, template: config}]`
	gatewayClass = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: RELEASE}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: RELEASE}`
)

// objectIn parses one YAML document after replacing NAMESPACE and RELEASE.
func objectIn(namespace, manifest, release string) *unstructured.Unstructured {
	manifest = strings.NewReplacer("NAMESPACE", namespace, "RELEASE", release).Replace(manifest)
	obj := &unstructured.Unstructured{}
	Expect(yaml.Unmarshal([]byte(manifest), &obj.Object)).To(Succeed())
	return obj
}

// create creates obj for real, deleting it when the spec ends.
func create(ctx context.Context, obj *unstructured.Unstructured) {
	Expect(k8s.Create(ctx, obj)).To(Succeed(), key(obj))
	DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(k8s.Delete(ctx, obj))).To(Succeed()) })
}

// awaitGrant waits until c may list kind in namespace ("" for every namespace).
func awaitGrant(ctx context.Context, c client.Client, kind, namespace string) {
	Eventually(func(ctx context.Context) error {
		return c.List(ctx, emptyList(kind), client.InNamespace(namespace))
	}).WithContext(ctx).Should(Succeed(), "%s in %q", kind, namespace)
}

// clientAs is a client that impersonates user.
func clientAs(user string) client.Client {
	impersonating := rest.CopyConfig(cfg)
	impersonating.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(impersonating, client.Options{Scheme: env.Scheme, Mapper: k8s.RESTMapper()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

var kindVersions = map[string]string{
	"GatewayConfig":         "gatewright.dev/v1alpha1",
	"GatewayClassConfig":    "gatewright.dev/v1alpha1",
	"GatewayClassBlueprint": "gatewright.dev/v1alpha1",
	"Gateway":               "gateway.networking.k8s.io/v1",
	"Lease":                 "coordination.k8s.io/v1",
	"Secret":                "v1",
	"Rendering":             "gatewright.dev/v1alpha1",
}

func emptyObject(kind string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(kindVersions[kind])
	obj.SetKind(kind)
	return obj
}

func emptyList(kind string) *unstructured.UnstructuredList {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(kindVersions[kind])
	list.SetKind(kind + "List")
	return list
}

func beForbidden() OmegaMatcher {
	return WithTransform(apierrors.IsForbidden, BeTrue())
}
