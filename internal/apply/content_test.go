package apply

import (
	"encoding/base64"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The cache's copy of a rendered object: what the API server holds, through
// StripContent, in the form the Applier reads it.
func cachedCopy(t *testing.T, typed runtime.Object) *unstructured.Unstructured {
	t.Helper()
	StripContent(typed)
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: content}
}

func TestStrippedObjectsMatchByTheirContentHash(t *testing.T) {
	large := strings.Repeat("x", 1<<20)
	renderedConfig := object(t, `
apiVersion: v1
kind: ConfigMap
metadata: {name: proxy, labels: {a: "1"}}
data: {config.json: "`+large+`", small: "s"}
binaryData: {blob: aGVsbG8=}
`)
	stampRenderedHash(renderedConfig)
	liveConfig := func(data map[string]string, labels map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "proxy", Labels: labels, ResourceVersion: "7",
				Annotations: map[string]string{RenderedHashAnnotation: renderedConfig.GetAnnotations()[RenderedHashAnnotation]}},
			Data: data, BinaryData: map[string][]byte{"blob": []byte("hello")},
		}
	}
	renderedSecret := object(t, `
apiVersion: v1
kind: Secret
metadata: {name: token}
type: Opaque
data: {a: YQ==, big: "`+base64.StdEncoding.EncodeToString([]byte(large))+`"}
stringData: {b: plain}
`)
	stampRenderedHash(renderedSecret)
	liveSecret := func(b string) *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "token", Annotations: map[string]string{RenderedHashAnnotation: renderedSecret.GetAnnotations()[RenderedHashAnnotation]}},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{"a": []byte("a"), "b": []byte(b), "big": []byte(large)},
		}
	}
	renderedCustom := object(t, `
apiVersion: example.com/v1
kind: Proxy
metadata: {name: big}
spec: {config: "`+large+`"}
`)
	stampRenderedHash(renderedCustom)
	liveCustom := func(config string) *unstructured.Unstructured {
		obj := renderedCustom.DeepCopy()
		obj.Object["spec"] = map[string]any{"config": config}
		obj.Object["status"] = map[string]any{"ready": true}
		return obj
	}

	for _, tt := range []struct {
		name     string
		live     runtime.Object
		rendered *unstructured.Unstructured
		want     bool
	}{
		{"a ConfigMap as rendered matches without its data", liveConfig(map[string]string{"config.json": large, "small": "s"}, map[string]string{"a": "1"}), renderedConfig, true},
		{"a ConfigMap whose data someone edited does not match", liveConfig(map[string]string{"config.json": large[1:] + "y", "small": "s"}, map[string]string{"a": "1"}), renderedConfig, false},
		{"a ConfigMap that lost a key does not match", liveConfig(map[string]string{"config.json": large}, map[string]string{"a": "1"}), renderedConfig, false},
		{"a ConfigMap whose label someone edited does not match", liveConfig(map[string]string{"config.json": large, "small": "s"}, map[string]string{"a": "2"}), renderedConfig, false},
		{"a Secret as rendered, stringData included, matches", liveSecret("plain"), renderedSecret, true},
		{"a Secret whose data someone edited does not match", liveSecret("other"), renderedSecret, false},
		{"a large custom object as rendered matches without its spec", liveCustom(large), renderedCustom, true},
		{"a large custom object whose spec someone edited does not match", liveCustom(large + "!"), renderedCustom, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			live := cachedCopy(t, tt.live)
			live.SetGroupVersionKind(tt.rendered.GroupVersionKind()) // as toUnstructured sets it
			if _, ok := stripped(live); !ok {
				t.Fatalf("the cache's copy was not stripped: %v", live.GetAnnotations())
			}
			if live.Object["data"] != nil || live.Object["binaryData"] != nil || live.Object["spec"] != nil {
				t.Fatalf("the cache's copy holds content: %v", live.Object)
			}
			if got := matches(live, tt.rendered); got != tt.want {
				t.Errorf("matches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSmallConfigMapsStayWhole(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "small"}, Data: map[string]string{"k": "v"}}
	StripContent(cm)
	if _, ok := cm.Annotations[ContentHashAnnotation]; ok || cm.Data["k"] != "v" {
		t.Errorf("a small ConfigMap was stripped: %+v", cm)
	}
}

func TestSmallCustomObjectsStayWhole(t *testing.T) {
	obj := object(t, `
apiVersion: example.com/v1
kind: Proxy
metadata: {name: small}
spec: {replicas: 2}
`)
	StripContent(obj)
	if _, ok := stripped(obj); ok || obj.Object["spec"] == nil {
		t.Errorf("a small custom object was stripped: %v", obj.Object)
	}
}

// A tenant who sets the annotation on the object itself does not make the Applier take
// it for a stripped copy: what is read from the API server loses it.
func TestTheHashAnnotationCountsOnlyOnTheCachesCopy(t *testing.T) {
	rendered := object(t, `
apiVersion: v1
kind: ConfigMap
metadata: {name: proxy}
data: {k: v}
`)
	stampRenderedHash(rendered)
	content, _ := renderedContent(rendered)
	live := rendered.DeepCopy()
	delete(live.Object, "data")
	live.SetAnnotations(map[string]string{RenderedHashAnnotation: rendered.GetAnnotations()[RenderedHashAnnotation], ContentHashAnnotation: hashContent(content)})
	forgetContentHash(live)
	if matches(live, rendered) {
		t.Error("an object without its data, read from the API server, matches the rendered one")
	}
}

// A tenant who writes the annotation on a small object, with the hash of the rendered
// content beside changed data, does not make the cache's copy pass for the rendered one.
func TestTheCacheKeepsNoHashItDidNotWrite(t *testing.T) {
	rendered := object(t, `
apiVersion: v1
kind: ConfigMap
metadata: {name: proxy}
data: {k: v}
`)
	stampRenderedHash(rendered)
	content, _ := renderedContent(rendered)
	forged := &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "proxy", Annotations: map[string]string{
			RenderedHashAnnotation: rendered.GetAnnotations()[RenderedHashAnnotation], ContentHashAnnotation: hashContent(content)}},
		Data: map[string]string{"k": "changed"},
	}
	if live := cachedCopy(t, forged); matches(live, rendered) {
		t.Error("a small object carrying a forged content hash matches the rendered one")
	}
}
