package conformance

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// GatewayClassName is the class the suite runs against.
const GatewayClassName = "gatewright-conformance"

// GatewayAddress is the fixed address the blueprint reports for every Gateway. It is
// from TEST-NET-1 (RFC 5737) and routes nowhere: the suite must never send traffic.
const GatewayAddress = "192.0.2.10"

// gatewayClassManifests are the blueprint and the GatewayClass under test. The blueprint
// renders a ConfigMap naming the valid listeners (those a data plane would serve) and a
// ServiceAccount per Gateway, both ready as soon as they exist, so Gateways are
// Programmed without a data plane (the ServiceAccount is where the suite looks for
// spec.infrastructure's labels and annotations), and a status template that gives every
// Gateway the fixed address the suite waits for.
const gatewayClassManifests = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: conformance}
spec:
  gatewayTemplate:
    resourceTemplates:
    - name: config
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .Gateway.metadata.name }}-conformance}
        data:
          listeners: {{ range .Listeners }}{{ if .valid }}{{ .name }} {{ end }}{{ end }}
    - name: serviceaccount
      template: |
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: {{ .Gateway.metadata.name }}-conformance}
    status:
      template: |
        addresses:
        - {type: IPAddress, value: "` + GatewayAddress + `"}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: ` + GatewayClassName + `}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: conformance}
`

// InstallGatewayClass applies the blueprint and the GatewayClass under test.
func InstallGatewayClass(ctx context.Context, k8s client.Client) error {
	for _, doc := range strings.Split(gatewayClassManifests, "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			return err
		}
		if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("conformance"), client.ForceOwnership); err != nil {
			return err
		}
	}
	return nil
}
