package apply

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// A tenant labels an object as Gatewright's and loads its metadata: the cache keeps
// what Gatewright reads of it (its owner labels and hash), a bounded size, and the copy
// never passes for the rendered object, so its owner applies it again.
func TestLoadedMetadataIsCutInTheCache(t *testing.T) {
	rendered := object(t, `
apiVersion: v1
kind: ConfigMap
metadata: {name: proxy, labels: {app.kubernetes.io/managed-by: gatewright, gatewright.dev/template: cm.yaml}}
data: {k: v}
`)
	stampRenderedHash(rendered)
	hostile := map[string]string{RenderedHashAnnotation: rendered.GetAnnotations()[RenderedHashAnnotation]}
	labels := map[string]string{gatewrightv1alpha1.LabelManagedBy: gatewrightv1alpha1.ManagedByValue, "gatewright.dev/template": "cm.yaml"}
	for i := range 1000 {
		hostile[fmt.Sprintf("tenant.example/a%d", i)] = strings.Repeat("x", 250)
		hostile[fmt.Sprintf("gatewright.dev/a%d", i)] = strings.Repeat("x", 200)
		labels[fmt.Sprintf("tenant.example/l%d", i)] = "v"
		labels[fmt.Sprintf("gatewright.dev/l%d", i)] = "v"
	}
	owners := make([]metav1.OwnerReference, 500)
	for i := range owners {
		owners[i] = metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: fmt.Sprintf("o%d", i), UID: "u"}
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "proxy", Labels: labels, Annotations: hostile, OwnerReferences: owners, Finalizers: []string{"tenant.example/hold"}},
		Data:       map[string]string{"k": "v"},
	}
	live := cachedCopy(t, cm)
	if n := metadataBytes(live); n > 1024 {
		t.Errorf("the cache holds %d bytes of the loaded metadata", n)
	}
	if live.GetLabels()["gatewright.dev/template"] != "cm.yaml" || live.GetLabels()[gatewrightv1alpha1.LabelManagedBy] != gatewrightv1alpha1.ManagedByValue {
		t.Errorf("the labels Gatewright reads were cut: %v", live.GetLabels())
	}
	if live.GetAnnotations()[RenderedHashAnnotation] == "" {
		t.Error("the rendered hash was cut")
	}
	if matches(live, rendered) {
		t.Error("a copy without its metadata matches the rendered object")
	}
}

func TestOrdinaryMetadataStaysWhole(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "proxy",
		Labels:      map[string]string{"app": "proxy", gatewrightv1alpha1.LabelManagedBy: gatewrightv1alpha1.ManagedByValue},
		Annotations: map[string]string{"deployment.kubernetes.io/revision": "3", "note": strings.Repeat("n", 4096)},
	}}
	StripContent(cm)
	if cm.Labels["app"] != "proxy" || len(cm.Annotations["note"]) != 4096 || cm.Annotations[ContentHashAnnotation] != "" {
		t.Errorf("ordinary metadata was cut: %v %v", cm.Labels, cm.Annotations)
	}
}
