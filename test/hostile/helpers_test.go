package hostile

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/test/testenv"
)

// Labels Gatewright puts on what it renders and on its Rendering records.
const (
	labelManagedBy          = "app.kubernetes.io/managed-by"
	labelGatewayName        = "gateway.networking.k8s.io/gateway-name"
	labelGatewayNamespace   = "gatewright.dev/gateway-namespace"
	labelHTTPRouteName      = "gatewright.dev/httproute-name"
	labelHTTPRouteNamespace = "gatewright.dev/httproute-namespace"

	// The inventory annotations of earlier versions, now only read once to migrate.
	inventoryAnnotation      = "gatewright.dev/inventory"
	routeInventoryAnnotation = "gatewright.dev/route-inventory"
)

// cleanupFinalizer holds a Rendering record until what it lists is deleted; Gateways and
// HTTPRoutes no longer carry it.
const cleanupFinalizer = "gatewright.dev/cleanup"

// renderingAPIVersion is the Rendering kind's: it is read as unstructured, so that the
// suite builds whether or not the kind exists in apis/ yet.
const renderingAPIVersion = "gatewright.dev/v1alpha1"

// clientFor is a client with the suite's scheme and the admin's REST mapper.
func clientFor(cfg *rest.Config) client.Client {
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme, Mapper: admin.RESTMapper()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// objects parses a YAML stream after replacing the keys of replacements by their values.
func objects(manifest string, replacements map[string]string) []*unstructured.Unstructured {
	for k, v := range replacements {
		manifest = strings.ReplaceAll(manifest, k, v)
	}
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(manifest, "\n---\n") {
		obj := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal([]byte(doc), &obj.Object)).To(Succeed(), doc)
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
	return out
}

// applyAs applies a YAML stream with server-side apply as c, like kubectl apply
// --server-side.
func applyAs(ctx context.Context, c client.Client, manifest string, replacements map[string]string) {
	for _, obj := range objects(manifest, replacements) {
		Expect(c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("kubectl"), client.ForceOwnership)).To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
	}
}

func listOf(apiVersion, kind string) *unstructured.UnstructuredList {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(apiVersion)
	list.SetKind(kind + "List")
	return list
}

// awaitGrant waits until c may list kind in namespace ("" for every namespace): the API
// server's RBAC authorizer reads bindings from a cache, and a refusal must be a refusal,
// not a cache miss.
func awaitGrant(ctx context.Context, c client.Client, apiVersion, kind, namespace string) {
	Eventually(func(ctx context.Context) error {
		return c.List(ctx, listOf(apiVersion, kind), client.InNamespace(namespace))
	}).WithContext(ctx).Should(Succeed(), "%s in %q", kind, namespace)
}

func beForbidden() OmegaMatcher {
	return WithTransform(apierrors.IsForbidden, BeTrue())
}

func beNotFound() OmegaMatcher {
	return WithTransform(apierrors.IsNotFound, BeTrue())
}

// tenant is a user who may edit one namespace, and nothing else: the gatewright-tenant
// role, and a Role standing in for the built-in edit role on the kinds tenants use
// (envtest runs no aggregation controller to fill edit).
type tenant struct {
	client.Client
	user      string
	namespace string
}

const tenantRoles = `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: USER-gatewright, namespace: NAMESPACE}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: USER}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: edit, namespace: NAMESPACE}
rules:
- apiGroups: [gateway.networking.k8s.io]
  resources: [gateways, httproutes]
  verbs: [get, list, watch, create, update, patch, delete, deletecollection]
- apiGroups: [""]
  resources: [configmaps, secrets, services]
  verbs: [get, list, watch, create, update, patch, delete, deletecollection]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: USER-edit, namespace: NAMESPACE}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: edit}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: USER}]
`

// newTenant gives user a new namespace named after team, and deletes the Gateways and
// HTTPRoutes left in it when the spec ends, so that later specs do not pay for them.
func newTenant(ctx context.Context, user, team string) *tenant {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: team + "-"}}
	Expect(admin.Create(ctx, ns)).To(Succeed())
	for _, obj := range objects(tenantRoles, map[string]string{"USER": user, "NAMESPACE": ns.Name}) {
		Expect(admin.Create(ctx, obj)).To(Succeed())
	}
	impersonating := rest.CopyConfig(adminCfg)
	impersonating.Impersonate = rest.ImpersonationConfig{UserName: user}
	t := &tenant{Client: clientFor(impersonating), user: user, namespace: ns.Name}
	awaitGrant(ctx, t, "gateway.networking.k8s.io/v1", "Gateway", t.namespace)
	awaitGrant(ctx, t, "gatewright.dev/v1alpha1", "GatewayConfig", t.namespace)
	DeferCleanup(func(ctx SpecContext) {
		Expect(admin.DeleteAllOf(ctx, &gatewayv1.HTTPRoute{}, client.InNamespace(t.namespace))).To(Succeed())
		Expect(admin.DeleteAllOf(ctx, &gatewayv1.Gateway{}, client.InNamespace(t.namespace))).To(Succeed())
	})
	return t
}

// apply applies a YAML stream as the tenant, with NAMESPACE replaced by its namespace
// and CLASS by class.
func (t *tenant) apply(ctx context.Context, class, manifest string) {
	applyAs(ctx, t, manifest, map[string]string{"NAMESPACE": t.namespace, "CLASS": class})
}

// gateway creates a Gateway of class with one HTTP listener that accepts routes from
// every namespace.
func (t *tenant) gateway(ctx context.Context, class, name string) {
	t.apply(ctx, class, gatewayManifest(name, nil))
}

// gatewayManifest is a Gateway of CLASS in NAMESPACE, with annotations.
func gatewayManifest(name string, annotations map[string]string) string {
	return `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
` + metadata(name, annotations) + `
spec:
  gatewayClassName: CLASS
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
`
}

// routeManifest is an HTTPRoute in NAMESPACE attached to Gateway gateway of NAMESPACE,
// with annotations.
func routeManifest(name, gateway string, annotations map[string]string) string {
	return `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
` + metadata(name, annotations) + `
spec:
  parentRefs: [{name: ` + gateway + `}]
  rules: [{backendRefs: [{name: app, port: 8080}]}]
`
}

// metadata is the metadata of an object named name in NAMESPACE, with annotations.
func metadata(name string, annotations map[string]string) string {
	meta := map[string]any{"name": name, "namespace": "NAMESPACE"}
	if annotations != nil {
		meta["annotations"] = annotations
	}
	out, err := yaml.Marshal(map[string]any{"metadata": meta})
	Expect(err).NotTo(HaveOccurred())
	return strings.TrimRight(string(out), "\n")
}

// gatewayConfig is a tenant's GatewayConfig in namespace that sets defaults for the
// target, a Gateway or the Namespace.
func gatewayConfig(namespace, targetKind, targetName string, defaults map[string]any) *unstructured.Unstructured {
	group := "gateway.networking.k8s.io"
	if targetKind == "Namespace" {
		group = ""
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gatewright.dev/v1alpha1",
		"kind":       "GatewayConfig",
		"metadata":   map[string]any{"name": strings.ToLower(targetKind) + "-" + targetName, "namespace": namespace},
		"spec": map[string]any{
			"targetRefs": []any{map[string]any{"group": group, "kind": targetKind, "name": targetName}},
			"default":    defaults,
		},
	}}
}

// configure applies, as the tenant, a GatewayConfig setting defaults for the target.
func (t *tenant) configure(ctx context.Context, targetKind, targetName string, defaults map[string]any) {
	config := gatewayConfig(t.namespace, targetKind, targetName, defaults)
	Expect(t.Apply(ctx, client.ApplyConfigurationFromUnstructured(config), client.FieldOwner("kubectl"), client.ForceOwnership)).To(Succeed())
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, line := range lines {
		lines[i] = prefix + line
	}
	return strings.Join(lines, "\n")
}

// getGateway reads a Gateway as the tenant sees it.
func (t *tenant) getGateway(ctx context.Context, name string) (*gatewayv1.Gateway, error) {
	gw := &gatewayv1.Gateway{}
	return gw, t.Get(ctx, client.ObjectKey{Namespace: t.namespace, Name: name}, gw)
}

// condition returns a Gateway's condition as "Status/Reason: message".
func (t *tenant) condition(ctx context.Context, gateway, conditionType string) func() string {
	return func() string {
		gw, err := t.getGateway(ctx, gateway)
		if err != nil {
			return err.Error()
		}
		return testenv.Condition(gw.Status.Conditions, conditionType, gw.Generation)
	}
}

// programmed waits until the Gateway is Programmed=True for its current generation.
func (t *tenant) programmed(ctx context.Context, gateway string) {
	Eventually(t.condition(ctx, gateway, "Programmed")).WithContext(ctx).Should(HavePrefix("True/Programmed"), "Gateway %s/%s", t.namespace, gateway)
}

// configMap reads a ConfigMap of the tenant's namespace as the cluster admin.
func (t *tenant) configMap(ctx context.Context, name string) func() (*corev1.ConfigMap, error) {
	return func() (*corev1.ConfigMap, error) {
		cm := &corev1.ConfigMap{}
		err := admin.Get(ctx, client.ObjectKey{Namespace: t.namespace, Name: name}, cm)
		return cm, err
	}
}

// renderedFor lists the names of the ConfigMaps in namespace that carry the labels of
// Gateway gateway of gatewayNamespace: what Gatewright treats as its own.
func renderedFor(ctx context.Context, namespace, gatewayNamespace, gateway string) func() ([]string, error) {
	return func() ([]string, error) {
		list := &corev1.ConfigMapList{}
		err := admin.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{
			labelManagedBy: "gatewright", labelGatewayName: gateway, labelGatewayNamespace: gatewayNamespace,
		})
		names := make([]string, 0, len(list.Items))
		for _, cm := range list.Items {
			names = append(names, cm.Name)
		}
		sort.Strings(names)
		return names, err
	}
}

// watchConfigMaps watches the ConfigMaps of namespace until the spec ends, and returns
// a function listing the data of every version of one of them seen so far.
func watchConfigMaps(ctx context.Context, namespace string) func(name string) []map[string]string {
	watching, err := client.NewWithWatch(adminCfg, client.Options{Scheme: env.Scheme, Mapper: admin.RESTMapper()})
	Expect(err).NotTo(HaveOccurred())
	w, err := watching.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace(namespace))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.Stop)
	var mu sync.Mutex
	var seen []corev1.ConfigMap
	go func() {
		for event := range w.ResultChan() {
			if cm, ok := event.Object.(*corev1.ConfigMap); ok {
				mu.Lock()
				seen = append(seen, *cm)
				mu.Unlock()
			}
		}
	}()
	return func(name string) []map[string]string {
		mu.Lock()
		defer mu.Unlock()
		var versions []map[string]string
		for _, cm := range seen {
			if cm.Name == name {
				versions = append(versions, cm.Data)
			}
		}
		return versions
	}
}

// uidOf returns the UID of an object, or the error reading it.
func uidOf(ctx context.Context, obj client.Object) func() (types.UID, error) {
	return func() (types.UID, error) {
		err := admin.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		return obj.GetUID(), err
	}
}

// newClass installs, as the provider, a blueprint with the given spec and a GatewayClass
// using it, both with a fresh name, and waits until the class is accepted.
func newClass(ctx context.Context, blueprintSpec string) string {
	name := "hostile-" + rand.String(6)
	setBlueprint(ctx, name, blueprintSpec)
	applyAs(ctx, admin, `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: NAME}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: NAME}
`, map[string]string{"NAME": name})
	Eventually(classCondition(ctx, name)).Should(HavePrefix("True/Accepted"))
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(admin.Delete(ctx, &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
		blueprint := &unstructured.Unstructured{}
		blueprint.SetAPIVersion("gatewright.dev/v1alpha1")
		blueprint.SetKind("GatewayClassBlueprint")
		blueprint.SetName(name)
		Expect(client.IgnoreNotFound(admin.Delete(ctx, blueprint))).To(Succeed())
	})
	return name
}

// setBlueprint creates or replaces the spec of the blueprint name, as the provider.
func setBlueprint(ctx context.Context, name, spec string) {
	applyAs(ctx, admin, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: `+name+`}
spec:
`+indent(strings.TrimPrefix(spec, "\n"), "  "), nil)
}

func classCondition(ctx context.Context, name string) func() string {
	return func() string {
		class := &gatewayv1.GatewayClass{}
		if err := admin.Get(ctx, client.ObjectKey{Name: name}, class); err != nil {
			return err.Error()
		}
		return testenv.Condition(class.Status.Conditions, "Accepted", class.Generation)
	}
}

// renderings lists, as c, the Rendering records in namespace with the given labels.
func renderings(ctx context.Context, c client.Client, namespace string, labels map[string]string) ([]unstructured.Unstructured, error) {
	list := listOf(renderingAPIVersion, "Rendering")
	err := c.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels(labels))
	return list.Items, err
}

// inventoryEntry is one entry, for an object of the core API group, of the old inventory
// annotations as Gatewright wrote them.
func inventoryEntry(kind, namespace, name, template string) string {
	return fmt.Sprintf(`{"v":"v1","k":%q,"ns":%q,"n":%q,"t":%q}`, kind, namespace, name, template)
}
