package apply

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// metadataStripped is the ContentHashAnnotation of a cached object whose metadata
// stripMetadata cut down. It is no hash, so the object never matches what was rendered:
// the reconcile of its owner applies it again (a request that writes nothing when it is
// as rendered), and a template that reads it gets it whole from the API server.
const metadataStripped = "metadata-stripped"

// A tenant who may label objects as Gatewright's may give each the API server's
// 256 KiB of annotations, and as many labels, owner references and finalizers as fit in
// an object: stripMetadata keeps of such an object, in the cache, what Gatewright reads
// of its metadata (readLabels, readAnnotations), so that the cache
// holds each for a bounded size whatever it carries.
func stripMetadata(m metav1.Object) {
	if metadataBytes(m) <= StripAbove {
		return
	}
	m.SetLabels(only(m.GetLabels(), readLabels))
	annotations := only(m.GetAnnotations(), readAnnotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[ContentHashAnnotation] = metadataStripped
	m.SetAnnotations(annotations)
	m.SetOwnerReferences(nil)
	m.SetFinalizers(nil)
}

func metadataBytes(m metav1.Object) int {
	raw, _ := json.Marshal(struct {
		Labels      map[string]string
		Annotations map[string]string
		Owners      []metav1.OwnerReference
		Finalizers  []string
	}{m.GetLabels(), m.GetAnnotations(), m.GetOwnerReferences(), m.GetFinalizers()})
	return len(raw)
}

// readLabels and readAnnotations are what Gatewright reads of a rendered object's
// metadata: its owner's and template's labels, and the rendered hash. Exact keys, not
// prefixes: a tenant may add as many keys under gatewright.dev as the object holds.
var (
	readLabels = []string{
		gatewrightv1alpha1.LabelManagedBy, gatewayv1.GatewayNameLabelKey, gatewrightv1alpha1.LabelGatewayNamespace,
		gatewrightv1alpha1.LabelHTTPRouteName, gatewrightv1alpha1.LabelHTTPRouteNamespace, gatewrightv1alpha1.LabelTemplate,
	}
	readAnnotations = []string{RenderedHashAnnotation}
)

// only is the entries of m under keys; nil when there are none.
func only(m map[string]string, keys []string) map[string]string {
	var kept map[string]string
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if kept == nil {
				kept = map[string]string{}
			}
			kept[k] = v
		}
	}
	return kept
}
