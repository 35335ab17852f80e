package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The large-values shape (-values-bytes N, issue 40): every Gateway's values carry N
// bytes, half from a second global policy and half from a second policy of each tenant
// namespace (a policy's block holds at most 512 KiB), and the blueprint renders the
// whole values into one more ConfigMap per Gateway, the usual "hand the proxy its
// configuration". Only Gatewright runs it (-only gatewright): the floor renders no such
// ConfigMap.

// valuesTemplate renders the values into a ConfigMap.
const valuesTemplate = `    - name: values
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ include "bench.name" . }}-values}
        data:
          values.json: {{ .Values | toJson | quote }}
`

// withValuesTemplate adds valuesTemplate to the bench blueprint bp.
func withValuesTemplate(bp string) string {
	return strings.Replace(bp, "    - name: service\n", valuesTemplate+"    - name: service\n", 1)
}

// largeValues are the two policies of the shape: the global one, and namespace's.
func largeValues(namespace string, bytes int) string {
	if namespace == "" {
		return fmt.Sprintf(`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: bench-values, namespace: %s}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: bench}]
  rolloutWithBlueprint: false
  default: {globalBlob: %s}
`, controllerNamespace, strings.Repeat("g", bytes/2))
	}
	return fmt.Sprintf(`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: values, namespace: %[1]s}
spec:
  targetRefs: [{group: "", kind: Namespace, name: %[1]s}]
  default: {tenantBlob: %[2]s}
`, namespace, strings.Repeat("t", bytes-bytes/2))
}

// storedBytes is what the API server holds (and etcd stores, as protobuf or JSON of
// about the same size) of the kinds the bench's Gateways make it hold: the bytes of
// JSON of every ConfigMap, Secret and Service rendered for the bench class, and of every
// Rendering, by kind.
func storedBytes(ctx context.Context, admin client.Client) (map[string]int64, error) {
	sizes := map[string]int64{}
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"}, {Version: "v1", Kind: "Service"},
		{Group: "gatewright.dev", Version: "v1alpha1", Kind: "Rendering"},
	} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		var opts []client.ListOption
		if gvk.Group == "" {
			opts = append(opts, client.MatchingLabels{"gateway.networking.k8s.io/gateway-class-name": benchClass})
		}
		if err := admin.List(ctx, list, opts...); err != nil {
			return nil, err
		}
		for _, item := range list.Items {
			raw, err := json.Marshal(item.Object)
			if err != nil {
				return nil, err
			}
			sizes[gvk.Kind] += int64(len(raw))
		}
	}
	return sizes, nil
}
