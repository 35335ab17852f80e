package controllers_test

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/test/testenv"
)

// world is one spec's own namespace, GatewayClass and blueprint, so specs never share
// objects.
type world struct {
	namespace string
	class     string
	blueprint string
}

func newWorld(ctx context.Context) world {
	suffix := rand.String(6)
	w := world{namespace: "ns-" + suffix, class: "class-" + suffix, blueprint: "bp-" + suffix}
	Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.namespace}})).To(Succeed())
	return w
}

// apply creates or updates objects written in YAML, after replacing NAMESPACE, CLASS
// and BLUEPRINT with the world's names.
func (w world) apply(ctx context.Context, manifest string) {
	manifest = strings.NewReplacer("NAMESPACE", w.namespace, "CLASS", w.class, "BLUEPRINT", w.blueprint).Replace(manifest)
	for _, doc := range strings.Split(manifest, "\n---\n") {
		obj := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal([]byte(doc), &obj.Object)).To(Succeed())
		if len(obj.Object) == 0 {
			continue
		}
		Expect(k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("test"), client.ForceOwnership)).To(Succeed(), doc)
	}
}

// classAndBlueprint installs a GatewayClass of Gatewright using a blueprint with the
// given gateway templates (YAML list items).
func (w world) classAndBlueprint(ctx context.Context, spec string) {
	w.apply(ctx, `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: CLASS}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: BLUEPRINT}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: BLUEPRINT}
spec:
`+indent(spec, "  "))
}

func (w world) gateway(ctx context.Context, name string) {
	w.apply(ctx, fmt.Sprintf(`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: %s, namespace: NAMESPACE}
spec:
  gatewayClassName: CLASS
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
`, name))
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimPrefix(s, "\n"), "\n")
	for i, line := range lines {
		if line != "" {
			lines[i] = prefix + line
		}
	}
	return strings.Join(lines, "\n")
}

func (w world) getGateway(ctx context.Context, name string) *gatewayv1.Gateway {
	gw := &gatewayv1.Gateway{}
	Expect(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name}, gw)).To(Succeed())
	return gw
}

// rendering returns a Rendering of the world's namespace, once it exists.
func (w world) rendering(ctx context.Context, name string) *gatewrightv1alpha1.Rendering {
	r := &gatewrightv1alpha1.Rendering{}
	Eventually(func() error { return k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name}, r) }).Should(Succeed())
	return r
}

// gatewayCondition returns a Gateway's condition as "Status/Reason: message".
func (w world) gatewayCondition(ctx context.Context, name, conditionType string) func() string {
	return func() string {
		gw := &gatewayv1.Gateway{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name}, gw); err != nil {
			return err.Error()
		}
		return testenv.Condition(gw.Status.Conditions, conditionType, gw.Generation)
	}
}

func (w world) configMap(ctx context.Context, name string) func() (*corev1.ConfigMap, error) {
	return func() (*corev1.ConfigMap, error) {
		cm := &corev1.ConfigMap{}
		err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name}, cm)
		return cm, err
	}
}

func configMapData(key string) func(*corev1.ConfigMap) string {
	return func(cm *corev1.ConfigMap) string { return cm.Data[key] }
}

// events returns the events on an object of the world's namespace as "Reason: message".
func (w world) events(ctx context.Context, kind, name string) func() []string {
	return func() []string {
		var events corev1.EventList
		Expect(k8s.List(ctx, &events, client.InNamespace(w.namespace))).To(Succeed())
		var out []string
		for _, e := range events.Items {
			if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name {
				out = append(out, e.Reason+": "+e.Message)
			}
		}
		return out
	}
}
